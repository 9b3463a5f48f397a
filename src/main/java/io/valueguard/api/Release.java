package io.valueguard.api;

/**
 * A release that has taken effect: the key holds nothing since {@code timestamp}, its effective time; outcome
 * {@code RELEASED}, or {@code ERASED} when the key's name has also been erased from both stages' stores. Internally
 * also {@link #NOT_RELEASED}: a conditional release found the claim it names gone, which is answered as a problem.
 */
public record Release(String key, long timestamp, String outcome) {

	static final String NOT_RELEASED = "NOT_RELEASED";

	static Release of(String key, long timestamp) {
		return new Release(key, timestamp, "RELEASED");
	}

	boolean released() {
		return !NOT_RELEASED.equals(this.outcome);
	}

}
