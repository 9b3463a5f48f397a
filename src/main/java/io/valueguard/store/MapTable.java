package io.valueguard.store;

import java.util.HashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A {@link StateTable} over a map: for state that needs no store, and so that the stages' logic runs without Kafka
 * in the randomized tests.
 */
public record MapTable<K, V>(Map<K, V> map) implements StateTable<K, V> {

	/** Over a map of its own. */
	public MapTable() {
		this(new HashMap<>());
	}

	@Override
	public @Nullable V get(K key) {
		return this.map.get(key);
	}

	@Override
	public void put(K key, V value) {
		this.map.put(key, value);
	}

	@Override
	public void delete(K key) {
		this.map.remove(key);
	}

}
