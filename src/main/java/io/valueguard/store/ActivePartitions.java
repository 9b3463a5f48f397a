package io.valueguard.store;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The partitions of each stage's table whose active task processes on this instance: from the end of its processor's
 * {@code init} (its store restored, its input's committed offsets known) until its processor is closed (the task
 * suspended for a revocation, recycled into a standby, or closed, cleanly or not).
 * <p>
 * Kafka Streams answers a query that needs the active store only while the whole stream thread is RUNNING, and a
 * thread is out of RUNNING through every rebalance it takes part in until each task it was given has restored and
 * fetched its input's committed offsets, which for a task taken over from a crashed instance waits until the broker
 * aborts that instance's open transaction. Meanwhile the thread's other tasks process on, and their stores are as
 * current as ever; this says which they are, so that lookups can still read them.
 */
public final class ActivePartitions {

	/** By table and partition, the processor whose task processes it: a task that closes late removes only its own. */
	private final Map<String, Map<Integer, Object>> processors = new ConcurrentHashMap<>();

	/** The task of {@code partition} of {@code table} processes here from now on, through {@code processor}. */
	public void started(String table, int partition, Object processor) {
		this.processors.computeIfAbsent(table, (name) -> new ConcurrentHashMap<>()).put(partition, processor);
	}

	/** The task that {@code processor} ran no longer processes here. */
	public void stopped(String table, int partition, Object processor) {
		Map<Integer, Object> partitions = this.processors.get(table);
		if (partitions != null) {
			partitions.remove(partition, processor);
		}
	}

	/** Whether an active task processes {@code partition} of {@code table} on this instance now. */
	public boolean processing(String table, int partition) {
		Map<Integer, Object> partitions = this.processors.get(table);
		return partitions != null && partitions.containsKey(partition);
	}

	/** The partitions of {@code table} whose active task processes on this instance now. */
	public Set<Integer> partitions(String table) {
		Map<Integer, Object> partitions = this.processors.get(table);
		return (partitions != null) ? Set.copyOf(partitions.keySet()) : Set.of();
	}

}
