package io.valueguard.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.valueguard.claims.ClaimCondition;

/**
 * Random claim histories with the shapes that break naive designs: many keys racing for few values, timestamps out
 * of order across keys and within a key, re-delivered duplicates, tombstones, and keys that move away and come back.
 */
public final class HistoryGenerator {

	private final Random random;

	private final int keys;

	private final int values;

	public HistoryGenerator(Random random, int keys, int values) {
		this.random = random;
		this.keys = keys;
		this.values = values;
	}

	public List<InputRecord> history(int length) {
		List<InputRecord> records = new ArrayList<>(length);
		while (records.size() < length) {
			int roll = this.random.nextInt(100);
			if (roll < 10 && !records.isEmpty()) {
				// a re-delivery of an earlier record
				records.add(records.get(this.random.nextInt(records.size())));
			}
			else if (roll < 20) {
				records.add(new InputRecord(key(), null, timestamp()));
			}
			else {
				records.add(new InputRecord(key(), value(), timestamp()));
			}
		}
		return records;
	}

	/**
	 * The history with a conditional record after about one record in five, for a key of the history so far: a
	 * release, or a claim of another value (a move), either naming a value the key claimed (or any value), and with
	 * {@code timestamps} either none, the timestamp of one of its records, or a nearby one; without, none.
	 */
	public List<InputRecord> withConditions(List<InputRecord> claims, boolean timestamps) {
		List<InputRecord> history = new ArrayList<>();
		Map<String, List<InputRecord>> byKey = new LinkedHashMap<>();
		for (InputRecord record : claims) {
			history.add(record);
			byKey.computeIfAbsent(record.key(), (key) -> new ArrayList<>()).add(record);
			if (this.random.nextInt(5) != 0) {
				continue;
			}
			List<String> keys = new ArrayList<>(byKey.keySet());
			String key = keys.get(this.random.nextInt(keys.size()));
			List<InputRecord> earlier = byKey.get(key);
			InputRecord named = earlier.get(this.random.nextInt(earlier.size()));
			String value = (named.value() != null && this.random.nextBoolean()) ? named.value() : value();
			Long timestamp = !timestamps ? null : switch (this.random.nextInt(3)) {
				case 0 -> null;
				case 1 -> named.timestamp();
				default -> timestamp();
			};
			ClaimCondition condition = new ClaimCondition(value, timestamp);
			history.add(this.random.nextBoolean() ? InputRecord.releaseIf(key, timestamp(), condition)
					: InputRecord.claimIf(key, value(), timestamp(), condition));
		}
		return history;
	}

	private String key() {
		int index = this.random.nextInt(this.keys);
		// a few keys outside the Basic Multilingual Plane check that ties are broken by UTF-8 order
		// ("k0\uD83D\uDE00" sorts after "k0\uFF21" in UTF-8, before it in UTF-16)
		return switch (index % 5) {
			case 3 -> "k" + (index / 5) + "\uD83D\uDE00";
			case 4 -> "k" + (index / 5) + "\uFF21";
			default -> "k" + index;
		};
	}

	private String value() {
		return "v" + this.random.nextInt(this.values);
	}

	private long timestamp() {
		// a narrow range makes ties on timestamp common
		return 1_000 + this.random.nextInt(40);
	}

}
