package io.valueguard.store;

import java.util.ArrayList;
import java.util.List;

/**
 * The keys a task's store may hold, as Bloom filters on the heap: {@link #mayHold} never answers no for a key that was
 * {@link #add added}, and answers yes for about 1% of the others. A stage asks it before it reads its store, because
 * a RocksDB read of a key the store does not hold costs nearly as much as one that finds it: both memtables and every
 * file's filter are searched, and RocksDB's Java binding then throws and catches a C++ exception to say "not found"
 * (9 to 14 µs at 1,000,000 keys on 2 cores, docs/benchmarks.md), where the filters answer in well under one.
 * <p>
 * The filters only grow: a key deleted from the store stays in them, which costs a needless read of it, never a wrong
 * answer. When the keys added outgrow the newest filter a filter twice its size is added, so that the rate of false
 * yeses stays near 1% however many keys come; the whole is built again from the store when its task starts.
 * 1.25 to 4 bytes of heap per key: 10 bits per key of room, and up to twice the room the keys take.
 */
final class StoredKeys {

	/** Bits per key: about 1% false yeses with {@link #PROBES} probes. */
	private static final int BITS_PER_KEY = 10;

	private static final int PROBES = 7;

	/** Keys the first filter holds at least, so that a store that starts empty does not add many small filters. */
	static final int MIN_KEYS = 1 << 14;

	private final List<Filter> filters = new ArrayList<>();

	/** A new set holding {@code hashes}: the hash codes of the keys the store holds now. */
	StoredKeys(int[] hashes, int count) {
		Filter first = new Filter(Math.max(MIN_KEYS, count * 2));
		for (int i = 0; i < count; i++) {
			first.add(hashes[i]);
		}
		this.filters.add(first);
	}

	boolean mayHold(Object key) {
		int hash = key.hashCode();
		for (int i = this.filters.size() - 1; i >= 0; i--) {
			if (this.filters.get(i).mayHold(hash)) {
				return true;
			}
		}
		return false;
	}

	void add(Object key) {
		int hash = key.hashCode();
		Filter newest = this.filters.get(this.filters.size() - 1);
		if (newest.added >= newest.capacity) {
			newest = new Filter((int) Math.min(Integer.MAX_VALUE / BITS_PER_KEY, newest.capacity * 2L));
			this.filters.add(newest);
		}
		newest.add(hash);
	}

	/** The filters' size on the heap, in bytes. */
	long bytes() {
		return this.filters.stream().mapToLong((filter) -> filter.bits.length * 8L).sum();
	}

	/** How many filters the keys have filled so far. */
	int filters() {
		return this.filters.size();
	}

	/** One Bloom filter, probed by double hashing a 64-bit mix of the key's hash code. */
	private static final class Filter {

		private final long[] bits;

		private final long size;

		private final int capacity;

		private int added;

		Filter(int capacity) {
			this.capacity = capacity;
			this.bits = new long[(int) Math.max(1, (long) capacity * BITS_PER_KEY / 64)];
			this.size = this.bits.length * 64L;
		}

		boolean mayHold(int hash) {
			long mixed = mix(hash);
			for (int probe = 0; probe < PROBES; probe++) {
				long bit = bit(mixed, probe);
				if ((this.bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
					return false;
				}
			}
			return true;
		}

		// one pass: a key counts towards the filter's room only if it set a bit, that is, if it was not there yet
		void add(int hash) {
			long mixed = mix(hash);
			boolean fresh = false;
			for (int probe = 0; probe < PROBES; probe++) {
				long bit = bit(mixed, probe);
				long word = this.bits[(int) (bit >>> 6)];
				fresh |= (word & (1L << bit)) == 0;
				this.bits[(int) (bit >>> 6)] = word | (1L << bit);
			}
			if (fresh) {
				this.added++;
			}
		}

		// double hashing: the mix's two halves give the first bit and the step between probes
		private long bit(long mixed, int probe) {
			return Integer.toUnsignedLong((int) mixed + probe * ((int) (mixed >>> 32) | 1)) % this.size;
		}

		// the finalizer of SplitMix64: spreads keys whose hash codes differ in a few low bits
		private static long mix(int hash) {
			long z = hash * 0x9E3779B97F4A7C15L;
			z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
			z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
			return z ^ (z >>> 31);
		}

	}

}
