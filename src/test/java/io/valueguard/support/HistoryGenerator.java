package io.valueguard.support;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

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
