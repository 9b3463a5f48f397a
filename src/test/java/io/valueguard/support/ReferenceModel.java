package io.valueguard.support;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;


/**
 * The final-state rule, written as plainly as possible, to check the streaming implementation against:
 * <ol>
 * <li>each key's records count in order; a record's effective timestamp is max(its timestamp, the key's previous
 * effective timestamp);</li>
 * <li>claims are ordered by (effective timestamp, key as UTF-8 bytes);</li>
 * <li>a key is bound to v iff its latest record claims v and that claim is the greatest claim of v ever made.</li>
 * </ol>
 */
public final class ReferenceModel {

	private record Claim(String key, String value, long timestamp) {

		boolean greaterThan(Claim other) {
			if (this.timestamp != other.timestamp) {
				return this.timestamp > other.timestamp;
			}
			return Arrays.compareUnsigned(this.key.getBytes(StandardCharsets.UTF_8),
					other.key.getBytes(StandardCharsets.UTF_8)) > 0;
		}

	}

	private final Map<String, Long> clocks = new HashMap<>();

	private final Map<String, Claim> latest = new HashMap<>();

	private final Map<String, Claim> top = new HashMap<>();

	/** Applies records in the order given; records of one key must be in their offset order. */
	public ReferenceModel apply(List<InputRecord> records) {
		records.forEach(this::apply);
		return this;
	}

	public ReferenceModel apply(InputRecord record) {
		long timestamp = Math.max(record.timestamp(), this.clocks.getOrDefault(record.key(), Long.MIN_VALUE));
		this.clocks.put(record.key(), timestamp);
		if (record.value() == null) {
			this.latest.remove(record.key());
			return this;
		}
		Claim claim = new Claim(record.key(), record.value(), timestamp);
		this.latest.put(record.key(), claim);
		Claim greatest = this.top.get(record.value());
		if (greatest == null || claim.greaterThan(greatest)) {
			this.top.put(record.value(), claim);
		}
		return this;
	}

	/** Key to the value it is bound to, once all input is processed. */
	public Map<String, String> bindings() {
		Map<String, String> bindings = new HashMap<>();
		this.latest.forEach((key, claim) -> {
			if (claim.equals(this.top.get(claim.value()))) {
				bindings.put(key, claim.value());
			}
		});
		return bindings;
	}

	/** Value to the key that owns it: the inverse of {@link #bindings()}. */
	public Map<String, String> owners() {
		Map<String, String> owners = new HashMap<>();
		bindings().forEach((key, value) -> owners.put(value, key));
		return owners;
	}

	/** The effective timestamp of each bound key's claim. */
	public Map<String, Long> bindingTimestamps() {
		Map<String, Long> timestamps = new HashMap<>();
		bindings().keySet().forEach((key) -> timestamps.put(key, this.latest.get(key).timestamp()));
		return timestamps;
	}

}
