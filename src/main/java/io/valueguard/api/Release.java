package io.valueguard.api;

/**
 * A release that has taken effect: the key holds nothing since {@code timestamp}, its effective time; outcome
 * {@code RELEASED}, or {@code ERASED} when the key's name has also been erased from both stages' stores.
 */
public record Release(String key, long timestamp, String outcome) {

	static Release of(String key, long timestamp) {
		return new Release(key, timestamp, "RELEASED");
	}

}
