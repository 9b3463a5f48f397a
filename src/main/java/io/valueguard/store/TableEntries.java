package io.valueguard.store;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.StateQueryRequest;

/**
 * An interactive query for the entries of many keys of a stage's table, each partition's keys read by that
 * partition's {@link WriteBehindTable} from its store. Read one key at a time, Kafka Streams finds the partition's
 * store anew for every key (a copy of all the thread's tasks, under the state updater's lock); one query finds each
 * partition's table once. The answer holds the keys that have an entry.
 * @param keys the keys to read, by partition
 * @param <K> the table's keys
 * @param <V> the table's values
 */
public record TableEntries<K, V>(Map<Integer, List<K>> keys) implements Query<Map<K, V>> {

	public TableEntries {
		keys = keys.entrySet()
			.stream()
			.collect(Collectors.toUnmodifiableMap(Map.Entry::getKey, (partition) -> List.copyOf(partition.getValue())));
	}

	/** The request of this query to the active tasks of the stage whose table's store is named {@code store}. */
	public StateQueryRequest<Map<K, V>> of(String store) {
		return ofAnyTask(store).requireActive();
	}

	/**
	 * The request of this query to whichever task of this instance holds each partition's table, active or standby:
	 * for partitions whose active task is known to process here while Kafka Streams refuses active-only queries (a
	 * stream thread in a rebalance is refused them for all its tasks).
	 */
	public StateQueryRequest<Map<K, V>> ofAnyTask(String store) {
		return StateQueryRequest.inStore(StageStores.pendingWritesOf(store))
			.withQuery(this)
			.withPartitions(this.keys.keySet());
	}

	/** The keys of {@code partition} to read; none when the query has none there. */
	List<K> keysOf(int partition) {
		return this.keys.getOrDefault(partition, List.of());
	}

}
