package io.valueguard.metrics;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.valueguard.kafka.StreamsClients;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.processor.StandbyUpdateListener;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.apache.kafka.streams.processor.TaskId;

/**
 * Restore progress of every store, by its name: records restored and still to restore, how long each partition's
 * restore took, and how many records standbys have applied. Fed by Kafka Streams' restore and standby listeners on the stream
 * threads, so every update is a counter increment or a map write.
 */
class RestoreMetrics implements StateRestoreListener, StandbyUpdateListener {

	private static final Log logger = LogFactory.getLog(RestoreMetrics.class);

	private record Restore(long startNanos, long endOffset, long position) {

	}

	private final Map<String, Counter> restored = new ConcurrentHashMap<>();

	private final Map<String, Counter> standbyUpdated = new ConcurrentHashMap<>();

	private final Map<String, Timer> durations = new ConcurrentHashMap<>();

	private final Map<TopicPartition, Restore> running = new ConcurrentHashMap<>();

	private final Map<TopicPartition, String> storeOf = new ConcurrentHashMap<>();

	private final MeterRegistry registry;

	RestoreMetrics(MeterRegistry registry) {
		this.registry = registry;
		register(StreamsClients.BINDINGS);
		register(StreamsClients.OWNERS);
	}

	/**
	 * Registers the meters of one store. Besides bindings and owners a stage keeps small stores (its erasures, the
	 * marks of its applied input), each counted under its own name rather than folded into another's.
	 */
	private synchronized void register(String store) {
		// the timer goes in last: once it is there, every meter of the store is
		if (this.durations.containsKey(store)) {
			return;
		}
		this.restored.put(store, Counter.builder("valueguard.restore.records.restored")
			.description("Records restored into the store from its changelog")
			.tag("store", store)
			.register(this.registry));
		this.standbyUpdated.put(store, Counter.builder("valueguard.standby.records.updated")
			.description("Records applied to standby replicas of the store")
			.tag("store", store)
			.register(this.registry));
		Gauge.builder("valueguard.restore.records.remaining", this, (metrics) -> metrics.remaining(store))
			.description("Records still to restore, over the store's partitions being restored here")
			.tag("store", store)
			.register(this.registry);
		Gauge.builder("valueguard.restore.partitions", this, (metrics) -> metrics.restoring(store))
			.description("Store partitions being restored here now")
			.tag("store", store)
			.register(this.registry);
		this.durations.put(store, Timer.builder("valueguard.restore.duration")
			.description("How long restoring one store partition took")
			.tag("store", store)
			.register(this.registry));
	}

	/** One of the store's meters, registering them all the first time the store is seen. */
	private <M> M meter(Map<String, M> meters, String store) {
		M meter = meters.get(store);
		if (meter == null) {
			register(store);
			meter = meters.get(store);
		}
		return meter;
	}

	private double remaining(String store) {
		return this.running.entrySet()
			.stream()
			.filter((entry) -> store.equals(this.storeOf.get(entry.getKey())))
			.mapToLong((entry) -> Math.max(0, entry.getValue().endOffset() - entry.getValue().position()))
			.sum();
	}

	private double restoring(String store) {
		return this.running.keySet().stream().filter((partition) -> store.equals(this.storeOf.get(partition))).count();
	}

	@Override
	public void onRestoreStart(TopicPartition partition, String store, long startingOffset, long endingOffset) {
		register(store);
		this.storeOf.put(partition, store);
		this.running.put(partition, new Restore(System.nanoTime(), endingOffset, startingOffset));
	}

	@Override
	public void onBatchRestored(TopicPartition partition, String store, long batchEndOffset, long numRestored) {
		meter(this.restored, store).increment(numRestored);
		this.running.computeIfPresent(partition,
				(key, restore) -> new Restore(restore.startNanos(), restore.endOffset(), batchEndOffset));
	}

	@Override
	public void onRestoreEnd(TopicPartition partition, String store, long totalRestored) {
		Restore restore = this.running.remove(partition);
		if (restore != null) {
			Timer timer = meter(this.durations, store);
			long nanos = System.nanoTime() - restore.startNanos();
			timer.record(nanos, TimeUnit.NANOSECONDS);
			// one line per partition that had anything to restore: how long an instance was not ready, and why
			if (totalRestored > 0) {
				logger.info(String.format(Locale.ROOT,
						"Restored %d records into store %s from %s in %d ms (%.0f records/s)", totalRestored, store,
						partition, nanos / 1_000_000, totalRestored / Math.max(nanos / 1e9, 1e-3)));
			}
		}
	}

	@Override
	public void onRestoreSuspended(TopicPartition partition, String store, long totalRestored) {
		this.running.remove(partition);
	}

	@Override
	public void onUpdateStart(TopicPartition partition, String store, long startingOffset) {
	}

	@Override
	public void onBatchLoaded(TopicPartition partition, String store, TaskId taskId, long batchEndOffset,
			long batchSize, long currentEndOffset) {
		meter(this.standbyUpdated, store).increment(batchSize);
	}

	@Override
	public void onUpdateSuspended(TopicPartition partition, String store, long storeOffset, long currentEndOffset,
			SuspendReason reason) {
	}

}
