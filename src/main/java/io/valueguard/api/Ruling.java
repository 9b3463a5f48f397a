package io.valueguard.api;

import org.jspecify.annotations.Nullable;

/**
 * The value stage's ruling on one claim, as a synchronous claim answers it: the claim (key, value, its effective
 * timestamp), whether it got the value, and who holds the value with which claim. A fact at that moment: a later,
 * greater claim may still take the value.
 */
public record Ruling(String key, String value, long timestamp, Outcome outcome, @Nullable Holder owner) {

	public enum Outcome {

		/** The claim holds the value. */
		BOUND,
		/** A greater claim holds the value (or took it since). */
		LOST

	}

	/** Who holds the value, and with which claim. */
	public record Holder(String key, long timestamp) {

	}

}
