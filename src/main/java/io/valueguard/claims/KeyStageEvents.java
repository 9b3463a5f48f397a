package io.valueguard.claims;

import io.valueguard.store.Sweep;

/**
 * What the key stage reports as it goes: the hook that metrics hang on. The stage calls it on its stream threads,
 * once per record, so implementations must be cheap and thread-safe.
 */
public interface KeyStageEvents {

	/** Does nothing: for tests and for running the topology without metrics. */
	KeyStageEvents NONE = new KeyStageEvents() {
	};

	default void rejected(ClaimRejection rejection) {
	}

	default void keyStage(KeyStage.Outcome outcome) {
	}

	/** A claims record arrived on another partition than its key's and was sent on to its key's partition. */
	default void rerouted() {
	}

	/**
	 * An input record at or below the offset the task applied last on its partition was passed over: the group's
	 * committed offset went back ({@link io.valueguard.store.AppliedInput}).
	 */
	default void inputPassedOver() {
	}

	/** A slice of the sweep over the bindings store read and forgot entries (retention, docs/design.md). */
	default void bindingsSwept(Sweep.Slice slice) {
	}

	/** An eviction took effect {@code latencyMillis} after the claim that caused it was made. */
	default void evicted(EvictionEvent event, long latencyMillis) {
	}

}
