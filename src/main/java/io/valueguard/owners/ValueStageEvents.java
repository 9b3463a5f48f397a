package io.valueguard.owners;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.store.Sweep;

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

	/**
	 * A command batch at or below the offset the task applied last on its partition was passed over: the group's
	 * committed offset went back ({@link io.valueguard.store.AppliedInput}).
	 */
	default void commandsPassedOver() {
	}

	/**
	 * A command batch came from a key stage that runs {@code rule}, not this stage's policy: instances run different
	 * policies, as while a rolling restart switches it (docs/design.md, "Switching policy"). Once per batch.
	 */
	default void foreignRule(ClaimPolicy rule) {
	}

	/**
	 * A slice of the sweep over the owners store read and forgot entries (retention), or rewrote them (erasure;
	 * docs/design.md).
	 */
	default void ownersSwept(Sweep.Slice slice) {
	}

}
