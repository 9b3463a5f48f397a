package io.valueguard.store;

import org.jspecify.annotations.Nullable;

/**
 * The slice of a key-value store that the stage logic needs. The stream processors back it with a RocksDB store;
 * the randomized tests back it with a map, so that the same logic runs with and without Kafka.
 */
public interface StateTable<K, V> {

	@Nullable V get(K key);

	void put(K key, V value);

	/** Forgets the entry: the store deletes it, and its changelog carries a tombstone for it. */
	void delete(K key);

	/**
	 * The entry as the stage sees it, given what its store holds for it ({@code stored}, read by an iterator over the
	 * store): a table that holds writes not yet in the store answers with those; otherwise the stored entry is it.
	 */
	default @Nullable V current(K key, V stored) {
		return get(key);
	}

	/**
	 * Writes to the store whatever writes the table still holds back, so that an iterator over the store sees every
	 * entry written so far. A table that holds none back has nothing to do.
	 */
	default void writePending() {
	}

}
