package io.valueguard.support;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.valueguard.claims.ClaimCondition;


/**
 * The final-state rule, written as plainly as possible, to check the streaming implementation against:
 * <ol>
 * <li>each key's records count in order; a record's effective timestamp is max(its timestamp, the key's previous
 * effective timestamp);</li>
 * <li>claims are ordered by (effective timestamp, key as UTF-8 bytes);</li>
 * <li>a key is bound to v iff its latest record claims v and that claim is the greatest claim of v ever made.</li>
 * </ol>
 * With retention, the records refused as too old at the key stage are left out of the history given to it, and the
 * claims the value stage refused as too old ({@link #refusing}) still count as their keys' records, but never as a
 * value's greatest claim, and a key whose latest claim was refused holds nothing.
 */
public final class ReferenceModel {

	private record Claim(String key, String value, long timestamp, boolean refused) {

		boolean greaterThan(Claim other) {
			if (this.timestamp != other.timestamp) {
				return this.timestamp > other.timestamp;
			}
			return Arrays.compareUnsigned(this.key.getBytes(StandardCharsets.UTF_8),
					other.key.getBytes(StandardCharsets.UTF_8)) > 0;
		}

		boolean sameClaim(Claim other) {
			return other != null && this.key.equals(other.key) && this.value.equals(other.value)
					&& this.timestamp == other.timestamp;
		}

	}

	private final Map<String, Long> clocks = new HashMap<>();

	private final Map<String, Claim> latest = new HashMap<>();

	private final Map<String, Claim> top = new HashMap<>();

	/** Each key's latest record: its value (null for a tombstone), for telling a new claim from a duplicate. */
	private final Map<String, String> lastValues = new HashMap<>();

	private final Map<String, Integer> claimsMade = new HashMap<>();

	private Set<String> refused = Set.of();

	/** Claims, named by {@link SimulatedPipeline#claimId}, that the value stage refused: they never take a value. */
	public ReferenceModel refusing(Set<String> claims) {
		this.refused = claims;
		return this;
	}

	/** Applies records in the order given; records of one key must be in their offset order. */
	public ReferenceModel apply(List<InputRecord> records) {
		records.forEach(this::apply);
		return this;
	}

	public ReferenceModel apply(InputRecord record) {
		Long clock = this.clocks.get(record.key());
		if (record.condition() != null && !claimIs(record.key(), record.condition())) {
			// its claim is gone: as if the record were not there (docs/design.md, "Conditional releases and moves")
			return this;
		}
		long timestamp = Math.max(record.timestamp(), (clock != null) ? clock : Long.MIN_VALUE);
		boolean duplicate = clock != null && clock == timestamp && record.value() != null
				&& record.value().equals(this.lastValues.get(record.key()));
		this.clocks.put(record.key(), timestamp);
		this.lastValues.put(record.key(), record.value());
		if (record.value() == null) {
			this.latest.remove(record.key());
			return this;
		}
		if (duplicate) {
			// the same claim again: it stays what it was, refused or not
			return this;
		}
		int made = this.claimsMade.merge(record.key(), 1, Integer::sum);
		Claim claim = new Claim(record.key(), record.value(), timestamp,
				this.refused.contains(SimulatedPipeline.claimId(record.key(), made)));
		this.latest.put(record.key(), claim);
		if (claim.refused()) {
			return this;
		}
		Claim greatest = this.top.get(record.value());
		if (greatest == null || claim.greaterThan(greatest)) {
			this.top.put(record.value(), claim);
		}
		return this;
	}

	/** True when the key's latest record is a claim of the condition's value (at its timestamp, if it names one). */
	public boolean claimIs(String key, ClaimCondition condition) {
		Long clock = this.clocks.get(key);
		return clock != null && condition.value().equals(this.lastValues.get(key))
				&& (condition.timestamp() == null || condition.timestamp().longValue() == clock);
	}

	/** Key to the value it is bound to, once all input is processed. */
	public Map<String, String> bindings() {
		Map<String, String> bindings = new HashMap<>();
		this.latest.forEach((key, claim) -> {
			if (!claim.refused() && claim.sameClaim(this.top.get(claim.value()))) {
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
