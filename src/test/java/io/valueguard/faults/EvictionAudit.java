package io.valueguard.faults;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.valueguard.support.InputRecord;

/**
 * Exactly-once evidence from the evictions topic. An eviction event names the claim that lost, (key, value, claim
 * timestamp), and each such claim can lose once per time it was made. A key makes the same claim again after a
 * tombstone when its clock has not moved (a tombstone stamped earlier than the key's clock), so the allowance is the
 * number of times the claims topic made that claim, counted as the key stage counts them: a claim equal to the key's
 * current claim is a duplicate and makes nothing new. Any event beyond its claim's allowance is one a replayed
 * transaction wrote twice.
 */
final class EvictionAudit {

	record Claim(String key, String value, long timestamp) {

	}

	private final Map<Claim, Integer> made = new HashMap<>();

	/** Counts the claims made by {@code records}, in the order of the claims topic. */
	EvictionAudit(List<InputRecord> records) {
		Map<String, Claim> current = new HashMap<>();
		for (InputRecord record : records) {
			Claim previous = current.get(record.key());
			long clock = (previous != null) ? Math.max(record.timestamp(), previous.timestamp()) : record.timestamp();
			Claim claim = new Claim(record.key(), record.value(), clock);
			if (record.value() != null && !claim.equals(previous)) {
				this.made.merge(claim, 1, Integer::sum);
			}
			current.put(record.key(), claim);
		}
	}

	/** Claims evicted more often than they were made, with how often each was evicted. */
	Map<Claim, Integer> excess(List<Claim> evictions) {
		Map<Claim, Integer> counts = new HashMap<>();
		evictions.forEach((claim) -> counts.merge(claim, 1, Integer::sum));
		Map<Claim, Integer> excess = new TreeMap<>(java.util.Comparator.comparing(Claim::toString));
		counts.forEach((claim, count) -> {
			if (count > this.made.getOrDefault(claim, 0)) {
				excess.put(claim, count);
			}
		});
		return excess;
	}

}
