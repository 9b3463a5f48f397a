package io.valueguard.support;

import java.util.Map;

import io.valueguard.store.StateTable;

/** A {@link StateTable} over a map, so that the stages' logic runs without Kafka. */
public record MapTable<K, V>(Map<K, V> map) implements StateTable<K, V> {

	@Override
	public V get(K key) {
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
