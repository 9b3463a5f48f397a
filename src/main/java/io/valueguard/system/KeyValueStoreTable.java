package io.valueguard.system;

import org.apache.kafka.streams.state.KeyValueStore;
import org.jspecify.annotations.Nullable;

/** A {@link StateTable} over a Kafka Streams key-value store, for the stage processors. */
public final class KeyValueStoreTable<K, V> implements StateTable<K, V> {

	private final KeyValueStore<K, V> store;

	public KeyValueStoreTable(KeyValueStore<K, V> store) {
		this.store = store;
	}

	@Override
	public @Nullable V get(K key) {
		return this.store.get(key);
	}

	@Override
	public void put(K key, V value) {
		this.store.put(key, value);
	}

}
