package io.valueguard.support;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.valueguard.claims.ClaimCondition;
import org.jspecify.annotations.Nullable;

/**
 * One record on the claims topic: a claim of {@code value}, or a tombstone when it is null; with {@code erase}, a
 * tombstone that asks for the key's name to be erased; with {@code condition}, a conditional release or claim.
 */
public record InputRecord(String key, @Nullable String value, long timestamp, boolean erase,
		@Nullable ClaimCondition condition) {

	public InputRecord(String key, @Nullable String value, long timestamp) {
		this(key, value, timestamp, false, null);
	}

	public InputRecord(String key, @Nullable String value, long timestamp, boolean erase) {
		this(key, value, timestamp, erase, null);
	}

	/** An erasure request. */
	public static InputRecord erasure(String key, long timestamp) {
		return new InputRecord(key, null, timestamp, true);
	}

	/** A conditional release: a tombstone that lets go only of the claim {@code condition} names. */
	public static InputRecord releaseIf(String key, long timestamp, ClaimCondition condition) {
		return new InputRecord(key, null, timestamp, false, condition);
	}

	/** A conditional claim: a move to {@code value} only from the claim {@code condition} names. */
	public static InputRecord claimIf(String key, String value, long timestamp, ClaimCondition condition) {
		return new InputRecord(key, value, timestamp, false, condition);
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
