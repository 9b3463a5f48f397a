package io.valueguard.api;

/** A release that has taken effect: the key holds nothing since {@code timestamp}, its effective time. */
public record Release(String key, long timestamp, String outcome) {

	static Release of(String key, long timestamp) {
		return new Release(key, timestamp, "RELEASED");
	}

}
