package io.valueguard.metrics;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.kafka.BoundedRocksDb;
import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.TaskId;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Whether the stores' index and filter blocks still fit the part of the RocksDB budget kept for them. Once they
 * outgrow it, data blocks evict them and, with whole (unpartitioned) blocks, every lookup that reaches a file rereads a
 * file's whole index and filter: at 10,000,000 keys on the default 64 MB the claims rate fell to a ninth of a plain
 * table's (docs/scaling.md). Three gauges let an alert warn before that:
 * <ul>
 * <li>{@code valueguard_rocksdb_index_filter_estimate_bytes{store}}: the index and filter blocks of the store
 * partitions this instance is active for, estimated from Kafka Streams' RocksDB metrics (their entries and file
 * sizes, read every {@code valueguard.metrics.refresh-interval}; standby partitions take no lookups and are left
 * out);</li>
 * <li>{@code valueguard_rocksdb_index_filter_share_bytes}: the part of the budget kept for them;</li>
 * <li>{@code valueguard_rocksdb_partitioned_filters}: 1 when {@code valueguard.rocksdb.partitioned-filters} is on,
 * which makes a lookup read one partition instead of a whole file's index and filter.</li>
 * </ul>
 */
@Component
class IndexAndFilterMetrics {

	private static final List<String> STORES = List.of(StreamsClients.BINDINGS, StreamsClients.OWNERS);

	private static final String STATE_GROUP = "stream-state-metrics";

	private static final String ENTRIES = "estimate-num-keys";

	private static final String FILE_BYTES = "total-sst-files-size";

	private final StreamsClients clients;

	private final int bloomBitsPerKey;

	private final Map<String, AtomicLong> estimates = new ConcurrentHashMap<>();

	IndexAndFilterMetrics(StreamsClients clients, ValueGuardProperties settings, MeterRegistry registry) {
		this.clients = clients;
		ValueGuardProperties.RocksDb rocksdb = settings.rocksdb();
		this.bloomBitsPerKey = rocksdb.bloomFilterBitsPerKey();
		for (String store : STORES) {
			AtomicLong estimate = new AtomicLong();
			this.estimates.put(store, estimate);
			Gauge.builder("valueguard.rocksdb.index.filter.estimate", estimate, AtomicLong::get)
				.description("Index and filter blocks of the store partitions this instance is active for, estimated "
						+ "from their entries and file sizes")
				.tag("store", store)
				.baseUnit("bytes")
				.register(registry);
		}
		long share = BoundedRocksDb.indexAndFilterShare(rocksdb);
		Gauge.builder("valueguard.rocksdb.index.filter.share", () -> share)
			.description("The part of the RocksDB budget (valueguard.rocksdb.block-cache-size) kept for index and "
					+ "filter blocks")
			.baseUnit("bytes")
			.register(registry);
		int partitioned = rocksdb.partitionedFilters() ? 1 : 0;
		Gauge.builder("valueguard.rocksdb.partitioned.filters", () -> partitioned)
			.description("1 when index and filter blocks are partitioned (valueguard.rocksdb.partitioned-filters)")
			.register(registry);
	}

	// as often as the streams clients' metrics are read into Micrometer: walking them all is not free, and the
	// estimate moves slowly
	@Scheduled(fixedDelayString = "${valueguard.metrics.refresh-interval:10s}",
			initialDelayString = "${valueguard.metrics.refresh-interval:10s}")
	void publish() {
		for (String store : STORES) {
			KafkaStreams streams = this.clients.forStore(store).orElse(null);
			if (streams == null || !streams.state().isRunningOrRebalancing()) {
				// stopped or restarting: the last reading stands until the client runs again
				continue;
			}
			try {
				this.estimates.get(store).set(estimate(store, streams));
			}
			catch (RuntimeException ex) {
				// a rebalance closed a store between two calls: the next reading will see the new assignment
			}
		}
	}

	private long estimate(String store, KafkaStreams streams) {
		Set<Integer> active = StoreLags.activePartitions(streams);
		long entries = 0;
		long fileBytes = 0;
		for (Map.Entry<MetricName, ? extends Metric> metric : streams.metrics().entrySet()) {
			MetricName name = metric.getKey();
			String task = name.tags().get("task-id");
			if (!name.group().equals(STATE_GROUP) || !store.equals(name.tags().get("rocksdb-state-id"))
					|| task == null || !active.contains(TaskId.parse(task).partition())) {
				continue;
			}
			if (name.name().equals(ENTRIES)) {
				entries += asLong(metric.getValue());
			}
			else if (name.name().equals(FILE_BYTES)) {
				fileBytes += asLong(metric.getValue());
			}
		}
		return BoundedRocksDb.indexAndFilterBytes(entries, fileBytes, this.bloomBitsPerKey);
	}

	private static long asLong(Metric metric) {
		return (metric.metricValue() instanceof Number number) ? number.longValue() : 0;
	}

}
