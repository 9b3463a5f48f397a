package io.valueguard.store;

import org.apache.kafka.streams.state.KeyValueStore;
import org.jspecify.annotations.Nullable;

/** A {@link StateTable} straight over a store: for small tables that need no write-behind. */
public record StoreTable<K, V>(KeyValueStore<K, V> store) implements StateTable<K, V> {

	@Override
	public @Nullable V get(K key) {
		return this.store.get(key);
	}

	@Override
	public void put(K key, V value) {
		this.store.put(key, value);
	}

	@Override
	public void delete(K key) {
		// a null value deletes without reading the entry first, as delete() does to return it
		this.store.put(key, null);
	}

}
