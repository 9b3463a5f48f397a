package io.valueguard.owners;

/**
 * What the value stage reports as it goes: the hook that metrics hang on. The stage calls it on its stream threads,
 * once per command, so implementations must be cheap and thread-safe.
 */
public interface ValueStageEvents {

	/** Does nothing: for tests and for running the topology without metrics. */
	ValueStageEvents NONE = new ValueStageEvents() {
	};

	default void valueStage(ValueStage.Outcome outcome) {
	}

	/** Retention forgot {@code entries} entries of the owners store. */
	default void forgottenOwners(int entries) {
	}

}
