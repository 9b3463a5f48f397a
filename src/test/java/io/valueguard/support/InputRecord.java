package io.valueguard.support;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * One record on the claims topic: a claim of {@code value}, or a tombstone when it is null; with {@code erase}, a
 * tombstone that asks for the key's name to be erased.
 */
public record InputRecord(String key, @Nullable String value, long timestamp, boolean erase) {

	public InputRecord(String key, @Nullable String value, long timestamp) {
		this(key, value, timestamp, false);
	}

	/** An erasure request. */
	public static InputRecord erasure(String key, long timestamp) {
		return new InputRecord(key, null, timestamp, true);
	}

	/** Every key the history names. */
	public static Set<String> keysOf(List<InputRecord> history) {
		Set<String> keys = new HashSet<>();
		history.forEach((record) -> keys.add(record.key()));
		return keys;
	}

	/** Every value the history claims. */
	public static Set<String> valuesOf(List<InputRecord> history) {
		Set<String> values = new HashSet<>();
		history.forEach((record) -> {
			if (record.value() != null) {
				values.add(record.value());
			}
		});
		return values;
	}

}
