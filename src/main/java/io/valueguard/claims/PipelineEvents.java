package io.valueguard.claims;

import io.valueguard.owners.ValueStage;

/**
 * What the stages report as they go: the hook that metrics hang on. The stages call it on their stream threads,
 * once per record, so implementations must be cheap and thread-safe.
 */
public interface PipelineEvents {

	/** Does nothing: for tests and for running the topology without metrics. */
	PipelineEvents NONE = new PipelineEvents() {
	};

	default void rejected(ClaimRejection rejection) {
	}

	default void keyStage(KeyStage.Outcome outcome) {
	}

	default void valueStage(ValueStage.Outcome outcome) {
	}

	/** An eviction took effect {@code latencyMillis} after the claim that caused it was made. */
	default void evicted(EvictionEvent event, long latencyMillis) {
	}

}
