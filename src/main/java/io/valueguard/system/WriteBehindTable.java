package io.valueguard.system;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A stage's table over its store whose writes, while its task reads a backlog, wait for the commit
 * ({@link WriteBehind}): an entry written twice between two commits costs one RocksDB write and one changelog record,
 * not two. The changelogs are most of what the stages write. Reads see the waiting writes first. Each write goes to
 * the store under the record context it was made under, so its changelog record carries the timestamp it would carry
 * without this table. Unlike Kafka's record cache, reads that miss cost one map lookup and leave nothing behind, so a
 * keyspace far larger than the heap costs nothing extra.
 */
public final class WriteBehindTable<K, V> extends WriteBehind<K, V> implements StateTable<K, V> {

	/** A new table per task, as Kafka Streams builds every store. */
	public static <K, V> StoreBuilder<WriteBehindTable<K, V>> builder(String name) {
		return builder(name, WriteBehindTable::new);
	}

	private @Nullable KeyValueStore<K, V> store;

	private WriteBehindTable(String name) {
		super(name);
	}

	/**
	 * Connects the table to the store it writes to and to the processor that writes; called from that processor's
	 * {@code init}.
	 */
	public void connect(ProcessorContext<?, ?> context, KeyValueStore<K, V> store) {
		this.store = store;
		start(context);
	}

	@Override
	public @Nullable V get(K key) {
		V waiting = waiting(key);
		return (waiting != null) ? waiting : this.store.get(key);
	}

	@Override
	public void put(K key, V value) {
		write(key, value);
	}

	@Override
	protected void apply(K key, V value) {
		this.store.put(key, value);
	}

	@Override
	protected String destination() {
		return "store '" + this.store.name() + "'";
	}

}
