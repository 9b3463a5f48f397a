package io.valueguard.config;

import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.Stores;

/**
 * Where both stages keep their stores. Either way each store has a changelog topic and standbys, so nothing is lost
 * when an instance fails; what differs is what a restart costs.
 */
public enum StoreType {

	/** RocksDB on the state directory: survives a restart, which then replays only what it missed. */
	ROCKSDB,

	/**
	 * The heap: no disk and no native memory, for development and small deployments; every restart restores the whole
	 * store from its changelog, and the heap must hold every entry.
	 */
	IN_MEMORY;

	public KeyValueBytesStoreSupplier supplier(String name) {
		return (this == ROCKSDB) ? Stores.persistentKeyValueStore(name) : Stores.inMemoryKeyValueStore(name);
	}

}
