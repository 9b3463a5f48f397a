package io.valueguard.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.valueguard.support.Scrape;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

/**
 * Kafka reports metrics of one name for several clients of a streams client (its main and restore consumers) and at
 * several scopes (a whole consumer, a topic, a partition). Each must become a series of its own, registered without
 * a conflict, and stay registered across a client restart.
 */
class StreamsMeterBinderTests {

	private static final String CLIENT_ID = "valueguard-keys-5c1f3a52-52a4-4bd5-9f36-0c7d0e0b5a11";

	private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

	private final List<String> failures = new CopyOnWriteArrayList<>();

	private final StreamsMeterBinder binder = new StreamsMeterBinder(this.registry, Duration.ofMillis(20));

	@BeforeEach
	void recordRegistrationFailures() {
		this.registry.config().onMeterRegistrationFailed((id, reason) -> this.failures.add(id + ": " + reason));
	}

	@AfterEach
	void close() {
		this.binder.destroy();
	}

	@Test
	void shouldKeepEveryClientAndScopeApart() {
		Map<MetricName, Metric> metrics = new ConcurrentHashMap<>();
		fetch(metrics, "records-consumed-total", 10, "client-id", CLIENT_ID + "-StreamThread-1-consumer");
		fetch(metrics, "records-consumed-total", 20, "client-id", CLIENT_ID + "-restore-consumer");
		fetch(metrics, "records-consumed-total", 7, "client-id", CLIENT_ID + "-StreamThread-1-consumer", "topic",
				"valueguard.claims");
		fetch(metrics, "records-lag-max", 5, "client-id", CLIENT_ID + "-StreamThread-1-consumer");
		fetch(metrics, "records-lag-max", 3, "client-id", CLIENT_ID + "-StreamThread-1-consumer", "topic",
				"valueguard.claims", "partition", "0");
		put(metrics, new MetricName("count", "kafka-metrics-count", "", Map.of("client-id", CLIENT_ID + "-admin")), 40);
		put(metrics, new MetricName("count", "kafka-metrics-count", "",
				Map.of("client-id", CLIENT_ID + "-StreamThread-1-producer")), 50);
		put(metrics, new MetricName("alive-stream-threads", "stream-metrics", "", Map.of("client-id", CLIENT_ID)), 1);
		// the streams client's own registry counts its metrics without any tag
		put(metrics, new MetricName("count", "kafka-metrics-count", "", Map.of()), 60);

		this.binder.bind("keys", "valueguard-keys", streams(metrics));

		await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
			Scrape scrape = new Scrape(this.registry.scrape());
			String consumer = "client=\"StreamThread-1-consumer\"";
			assertThat(scrape.values("kafka_stream_consumer_fetch_manager_records_consumed_total", consumer))
				.containsExactly(10.0);
			assertThat(scrape.values("kafka_stream_consumer_fetch_manager_records_consumed_total",
					"client=\"restore-consumer\""))
				.containsExactly(20.0);
			assertThat(scrape.values("kafka_stream_consumer_fetch_manager_topic_records_consumed_total", consumer,
					"topic=\"valueguard.claims\""))
				.containsExactly(7.0);
			assertThat(scrape.values("kafka_stream_consumer_fetch_manager_records_lag_max", consumer)).containsExactly(5.0);
			assertThat(scrape.values("kafka_stream_consumer_fetch_manager_partition_records_lag_max", consumer,
					"partition=\"0\""))
				.containsExactly(3.0);
			assertThat(scrape.values("kafka_stream_kafka_metrics_count_count", "client=\"admin\"")).containsExactly(40.0);
			assertThat(scrape.values("kafka_stream_kafka_metrics_count_count", "client=\"StreamThread-1-producer\""))
				.containsExactly(50.0);
			assertThat(scrape.values("kafka_stream_alive_stream_threads", "client=\"streams\"")).containsExactly(1.0);
			assertThat(scrape.values("kafka_stream_kafka_metrics_count_count", "client=\"streams\"")).containsExactly(60.0);
		});
		assertThat(this.registry.scrape()).doesNotContain(CLIENT_ID);
		assertThat(this.failures).isEmpty();
	}

	@Test
	void shouldKeepMetersOfARestartedClient() {
		Map<MetricName, Metric> before = new ConcurrentHashMap<>();
		fetch(before, "records-consumed-total", 10, "client-id", CLIENT_ID + "-StreamThread-1-consumer");
		this.binder.bind("keys", "valueguard-keys", streams(before));
		String name = "kafka_stream_consumer_fetch_manager_records_consumed_total";
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).containsExactly(10.0));

		// the supervisor's restart: a new client under the same factory, with a new process id
		String restartedId = "valueguard-keys-0b7f0a3e-9d2c-4a61-8f1e-3c5d2e1f4a77";
		Map<MetricName, Metric> after = new ConcurrentHashMap<>();
		fetch(after, "records-consumed-total", 3, "client-id", restartedId + "-StreamThread-1-consumer");
		this.binder.bind("keys", "valueguard-keys", streams(after));

		// the same series, now reading the new client; it stays once the old client's meters are gone
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).containsExactly(3.0));
		await().during(Duration.ofMillis(200))
			.atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).containsExactly(3.0));

		// a metric Kafka drops goes with its meter
		after.clear();
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).isEmpty());
		assertThat(this.failures).isEmpty();
	}

	@Test
	void shouldBindOneMeterWhenTwoMetricsMapToItAndTheOtherWhenTheFirstGoes() {
		// the process id is left out of the tags: two metrics that differ only in it map to one meter
		Map<MetricName, Metric> metrics = new ConcurrentHashMap<>();
		MetricName first = new MetricName("alive-stream-threads", "stream-metrics", "",
				Map.of("client-id", CLIENT_ID, "process-id", "first"));
		put(metrics, first, 1);
		this.binder.bind("keys", "valueguard-keys", streams(metrics));
		String name = "kafka_stream_alive_stream_threads";
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).containsExactly(1.0));

		put(metrics, new MetricName("alive-stream-threads", "stream-metrics", "",
				Map.of("client-id", CLIENT_ID, "process-id", "second")), 2);
		await().during(Duration.ofMillis(200))
			.atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).containsExactly(1.0));

		metrics.remove(first);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(new Scrape(this.registry.scrape()).values(name)).containsExactly(2.0));
		assertThat(this.failures).isEmpty();
	}

	private static KafkaStreams streams(Map<MetricName, Metric> metrics) {
		KafkaStreams streams = mock(KafkaStreams.class);
		when(streams.metrics()).thenAnswer((invocation) -> Map.copyOf(metrics));
		return streams;
	}

	private static void fetch(Map<MetricName, Metric> metrics, String name, double value, String... tags) {
		Map<String, String> tagMap = new java.util.LinkedHashMap<>();
		for (int i = 0; i < tags.length; i += 2) {
			tagMap.put(tags[i], tags[i + 1]);
		}
		put(metrics, new MetricName(name, "consumer-fetch-manager-metrics", "", tagMap), value);
	}

	private static void put(Map<MetricName, Metric> metrics, MetricName name, double value) {
		metrics.put(name, new FixedMetric(name, value));
	}

	private record FixedMetric(MetricName metricName, double value) implements Metric {

		@Override
		public Object metricValue() {
			return this.value;
		}

	}

}
