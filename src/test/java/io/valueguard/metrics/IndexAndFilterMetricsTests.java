package io.valueguard.metrics;

import java.math.BigInteger;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.support.Scrape;
import io.valueguard.support.TestProperties;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.processor.TaskId;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

class IndexAndFilterMetricsTests {

	private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

	private final StreamsClients clients = mock(StreamsClients.class);

	@Test
	void shouldEstimateTheActivePartitionsIndexAndFiltersAgainstATenthOfTheBudget() {
		Map<MetricName, Metric> metrics = new HashMap<>();
		// active for partitions 1 and 3; a standby of partition 2, whose store takes no lookups
		state(metrics, "estimate-num-keys", "0_1", "bindings", 1_000_000);
		state(metrics, "total-sst-files-size", "0_1", "bindings", 40_960_000);
		state(metrics, "estimate-num-keys", "0_3", "bindings", 600_000);
		state(metrics, "total-sst-files-size", "0_3", "bindings", 0);
		state(metrics, "estimate-num-keys", "0_2", "bindings", 5_000_000);
		state(metrics, "total-sst-files-size", "0_2", "bindings", 400_000_000);
		// another store of the same task, and a metric of another group with the same name
		state(metrics, "estimate-num-keys", "0_1", "bindings-pending-writes", 7_000);
		metrics.put(new MetricName("estimate-num-keys", "stream-task-metrics", "",
				Map.of("task-id", "0_1", "rocksdb-state-id", "bindings")), new FixedMetric(9_000_000L));
		KafkaStreams keys = streams(metrics, Set.of(1, 3), Set.of(2));
		when(this.clients.forStore(StreamsClients.BINDINGS)).thenReturn(Optional.of(keys));
		when(this.clients.forStore(StreamsClients.OWNERS)).thenReturn(Optional.empty());

		IndexAndFilterMetrics gauges = new IndexAndFilterMetrics(this.clients,
				TestProperties.of(Map.of("valueguard.rocksdb.block-cache-size", "256MB")), this.registry);
		gauges.publish();

		Scrape scrape = new Scrape(this.registry.scrape());
		// 1,600,000 entries at 10 bits each, and 24 bytes of index per 4 KiB of 40,960,000 bytes of files
		assertThat(scrape.values("valueguard_rocksdb_index_filter_estimate_bytes", "store=\"bindings\""))
			.containsExactly(1_600_000 * 10 / 8 + 10_000 * 24.0);
		// a stage not started yet reads nothing
		assertThat(scrape.values("valueguard_rocksdb_index_filter_estimate_bytes", "store=\"owners\""))
			.containsExactly(0.0);
		assertThat(scrape.values("valueguard_rocksdb_index_filter_share_bytes"))
			.containsExactly((double) ((256L << 20) / 10));
		assertThat(scrape.values("valueguard_rocksdb_partitioned_filters")).containsExactly(0.0);
	}

	@Test
	void shouldKeepTheLastReadingWhileTheStageIsNotRunning() {
		Map<MetricName, Metric> metrics = new HashMap<>();
		state(metrics, "estimate-num-keys", "0_0", "owners", 80_000);
		KafkaStreams values = streams(metrics, Set.of(0), Set.of());
		when(this.clients.forStore(StreamsClients.OWNERS)).thenReturn(Optional.of(values));
		when(this.clients.forStore(StreamsClients.BINDINGS)).thenReturn(Optional.empty());
		IndexAndFilterMetrics gauges = new IndexAndFilterMetrics(this.clients,
				TestProperties.of(Map.of("valueguard.rocksdb.partitioned-filters", true)), this.registry);
		gauges.publish();

		when(values.state()).thenReturn(KafkaStreams.State.PENDING_SHUTDOWN);
		metrics.clear();
		gauges.publish();

		Scrape scrape = new Scrape(this.registry.scrape());
		assertThat(scrape.values("valueguard_rocksdb_index_filter_estimate_bytes", "store=\"owners\""))
			.containsExactly(100_000.0);
		assertThat(scrape.values("valueguard_rocksdb_partitioned_filters")).containsExactly(1.0);
	}

	private static KafkaStreams streams(Map<MetricName, Metric> metrics, Set<Integer> active, Set<Integer> standby) {
		// the task mocks first: Mockito stubs one call at a time
		Set<TaskMetadata> activeTasks = tasks(active);
		Set<TaskMetadata> standbyTasks = tasks(standby);
		ThreadMetadata thread = mock(ThreadMetadata.class);
		when(thread.activeTasks()).thenReturn(activeTasks);
		when(thread.standbyTasks()).thenReturn(standbyTasks);
		KafkaStreams streams = mock(KafkaStreams.class);
		when(streams.state()).thenReturn(KafkaStreams.State.RUNNING);
		when(streams.metadataForLocalThreads()).thenReturn(Set.of(thread));
		when(streams.metrics()).thenAnswer((invocation) -> Map.copyOf(metrics));
		return streams;
	}

	private static Set<TaskMetadata> tasks(Set<Integer> partitions) {
		Set<TaskMetadata> tasks = new HashSet<>();
		for (int partition : partitions) {
			TaskMetadata task = mock(TaskMetadata.class);
			when(task.taskId()).thenReturn(new TaskId(0, partition));
			tasks.add(task);
		}
		return tasks;
	}

	/** A RocksDB property-based metric of one store of one task; Kafka reports sums of properties as BigInteger. */
	private static void state(Map<MetricName, Metric> metrics, String name, String task, String store, long value) {
		metrics.put(new MetricName(name, "stream-state-metrics", "",
				Map.of("thread-id", "StreamThread-1", "task-id", task, "rocksdb-state-id", store)),
				new FixedMetric(BigInteger.valueOf(value)));
	}

	private record FixedMetric(Object metricValue) implements Metric {

		@Override
		public MetricName metricName() {
			throw new UnsupportedOperationException();
		}

	}

}
