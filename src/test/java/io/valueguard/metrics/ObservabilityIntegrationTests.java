package io.valueguard.metrics;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import ch.qos.logback.classic.LoggerContext;
import io.valueguard.ValueGuardApplication;
import io.valueguard.support.ApiClient;
import io.valueguard.support.DashboardQueries;
import io.valueguard.support.FreePorts;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.PromQlNames;
import io.valueguard.support.Scrape;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static io.valueguard.support.TopologyHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Every signal operators rely on, checked on a running instance: the pipeline, lookup, lag and restore metrics after
 * a workload with evictions, every metric the dashboard and the alert rules use, a real Prometheus scraping it, and
 * clean scrapes while a restarted instance restores its stores.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 4, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ObservabilityIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(60);

	@TempDir
	static Path work;

	private static String brokers;

	private static ConfigurableApplicationContext app;

	private static ApiClient api;

	private static int port;

	@BeforeAll
	static void start(EmbeddedKafkaBroker broker) {
		brokers = broker.getBrokersAsString();
		app = start("first");
	}

	@AfterAll
	static void stop() {
		if (app != null) {
			app.close();
		}
	}

	private static ConfigurableApplicationContext start(String stateDir) {
		port = FreePorts.next();
		ConfigurableApplicationContext context = launch(stateDir, port);
		api = new ApiClient(port);
		return context;
	}

	private static ConfigurableApplicationContext launch(String stateDir, int serverPort) {
		ConfigurableApplicationContext context = new SpringApplicationBuilder(ValueGuardApplication.class).run(
				"--server.port=" + serverPort, "--spring.kafka.bootstrap-servers=" + brokers,
				"--valueguard.embedded-kafka.enabled=false", "--valueguard.topics.partitions=4",
				"--valueguard.state-dir=" + work.resolve(stateDir), "--valueguard.metrics.refresh-interval=1s",
				"--valueguard.query.lag-refresh-interval=500ms",
				"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=50");
		ApiClient client = new ApiClient(serverPort);
		await("ready").atMost(PATIENCE).until(() -> client.get("/actuator/health/readiness").status() == 200);
		return context;
	}

	@Test
	@Order(1)
	void shouldExposePipelineLookupLagAndRocksDbMetricsAfterWorkload() {
		for (int i = 0; i < 10; i++) {
			assertThat(api.claim("k" + i, "v" + (i % 5)).status()).isEqualTo(202);
		}
		try (KafkaProbe kafka = new KafkaProbe(brokers)) {
			long anHourAgo = System.currentTimeMillis() - 3_600_000;
			kafka.send("valueguard.claims", utf8("late-key"), utf8("v0"), anHourAgo);
			kafka.send("valueguard.claims", utf8("poison"), new byte[] { (byte) 0xFF }, System.currentTimeMillis());
		}
		await("workload applied").atMost(PATIENCE).until(() -> api.owner("v0").status() == 200
				&& "k5".equals(api.owner("v0").json().get("key").asString()) && api.binding("late-key").status() == 404);
		api.binding("k9");
		api.owner("v4");

		await("every signal present").atMost(PATIENCE).untilAsserted(() -> {
			Scrape scrape = scrape();
			assertThat(scrape.sum("valueguard_key_stage_records_total", "outcome=\"claimed\"")).hasValue(11);
			// six keys lose a value; whether as superseded or late depends on which command reaches the value stage
			// first (k0 and k5 live on different partitions), so only the old claim from an hour ago is surely late
			assertThat(scrape.sum("valueguard_evictions_total")).hasValue(6);
			assertThat(scrape.sum("valueguard_evictions_total", "reason=\"late\"").orElse(0)).isGreaterThanOrEqualTo(1);
			assertThat(scrape.sum("valueguard_value_stage_commands_total", "outcome=\"taken\"").orElse(0)
					+ scrape.sum("valueguard_value_stage_commands_total", "outcome=\"lost\"").orElse(0)).isEqualTo(6);
			assertThat(scrape.sum("valueguard_dlq_records_total", "reason=\"value_not_utf8\"")).hasValue(1);
			assertThat(scrape.sum("valueguard_key_stage_records_total", "outcome=\"duplicate\"")).hasValue(0);
			assertThat(scrape.sum("valueguard_key_stage_records_total", "outcome=\"stale_eviction\"")).isPresent();
			assertThat(scrape.sum("valueguard_eviction_latency_seconds_count")).hasValue(6);
			// percentiles come from the histogram buckets, with histogram_quantile in PromQL
			assertThat(scrape.values("valueguard_eviction_latency_seconds_bucket", "le=\"+Inf\"")).containsExactly(6.0);
			assertThat(scrape.sum("valueguard_lookup_latency_seconds_count", "route=\"local\"").orElse(0)).isPositive();
			assertThat(scrape.values("valueguard_lookup_latency_seconds_bucket")).isNotEmpty();
			assertThat(scrape.values("valueguard_store_offset_lag", "store=\"bindings\"", "role=\"active\""))
				.hasSize(4)
				.allSatisfy((lag) -> assertThat(lag).isGreaterThanOrEqualTo(0));
			assertThat(scrape.values("valueguard_store_offset_lag", "store=\"owners\"")).hasSize(4);
			assertThat(scrape.values("valueguard_streams_running")).containsExactly(1.0, 1.0);
			// the two main stores from the start; the small ones (erasures, marks) once they restore, each by its name
			assertThat(scrape.values("valueguard_restore_records_remaining", "store=\"bindings\"")).hasSize(1);
			assertThat(scrape.values("valueguard_restore_records_remaining", "store=\"owners\"")).hasSize(1);
			assertThat(scrape.values("valueguard_restore_records_remaining")).allSatisfy(
					(remaining) -> assertThat(remaining).isGreaterThanOrEqualTo(0));
			// RocksDB: property-based (KIP-607), recorded at every level
			assertThat(scrape.values("kafka_stream_state_mem_table_flush_pending", "store=\"bindings\"")).isNotEmpty();
			assertThat(scrape.values("kafka_stream_state_compaction_pending", "store=\"owners\"")).isNotEmpty();
			assertThat(scrape.sum("kafka_stream_state_estimate_num_keys", "store=\"bindings\"").orElse(0))
				.isGreaterThanOrEqualTo(10);
			assertThat(scrape.values("kafka_stream_state_block_cache_capacity", "store=\"owners\"")).isNotEmpty()
				.allSatisfy((capacity) -> assertThat(capacity).isPositive());
			assertThat(scrape.values("kafka_stream_state_block_cache_usage", "store=\"bindings\"")).isNotEmpty();
			assertThat(scrape.values("kafka_stream_state_cur_size_all_mem_tables", "store=\"bindings\"")).isNotEmpty();
			assertThat(scrape.values("kafka_stream_state_estimate_pending_compaction_bytes")).isNotEmpty();
			assertThat(scrape.values("kafka_stream_state_total_sst_files_size")).isNotEmpty();
			assertThat(scrape.values("kafka_stream_state_background_errors")).isNotEmpty()
				.allSatisfy((errors) -> assertThat(errors).isZero());
			// the active partitions' index and filters (in memtables yet: a filter's 10 bits an entry), against the
			// tenth of the default 64 MB budget kept for them; whole blocks, by default
			assertThat(scrape.sum("valueguard_rocksdb_index_filter_estimate_bytes", "store=\"bindings\"").orElse(0))
				.isGreaterThanOrEqualTo(10 * 10 / 8);
			assertThat(scrape.values("valueguard_rocksdb_index_filter_estimate_bytes", "store=\"owners\"")).hasSize(1);
			assertThat(scrape.values("valueguard_rocksdb_index_filter_share_bytes"))
				.containsExactly((double) ((64L << 20) / 10));
			assertThat(scrape.values("valueguard_rocksdb_partitioned_filters")).containsExactly(0.0);
			// statistics-based (KIP-471): registered, but recorded only at DEBUG, and the default is INFO
			assertThat(scrape.values("kafka_stream_state_bytes_written_total", "store=\"bindings\"")).isNotEmpty()
				.allSatisfy((written) -> assertThat(written).isZero());
			assertThat(scrape.values("kafka_stream_state_write_stall_duration_total")).isNotEmpty();
			assertThat(scrape.values("kafka_stream_task_process_total", "application_id=\"valueguard-keys\""))
				.isNotEmpty();
			// the main and the restore consumer report the same names, per consumer, topic and partition: each is a
			// series of its own (they used to collide, and the per-topic ones failed to register)
			String consumed = "kafka_stream_consumer_fetch_manager_records_consumed_total";
			assertThat(scrape.values(consumed, "client=\"StreamThread-1-consumer\"")).hasSize(2)
				.anySatisfy((records) -> assertThat(records).isPositive());
			assertThat(scrape.values(consumed, "client=\"restore-consumer\"")).hasSize(2);
			assertThat(scrape.sum("kafka_stream_consumer_fetch_manager_topic_records_consumed_total",
					"application_id=\"valueguard-keys\"", "topic=\"valueguard.claims\"").orElse(0))
				.isGreaterThanOrEqualTo(12);
			assertThat(scrape.values("kafka_stream_consumer_fetch_manager_partition_records_lag_max")).isNotEmpty();
			// log events by level (metrics/LogEventMetrics), one series each; start-up alone logs at INFO
			assertThat(scrape.values("logback_events_total", "level=\"info\"")).singleElement()
				.satisfies((events) -> assertThat(events).isPositive());
			assertThat(scrape.values("logback_events_total", "level=\"error\"")).hasSize(1);
		});
		// counted by an appender: no turbo filter in the way of the clients' per-record level checks
		assertThat(((LoggerContext) LoggerFactory.getILoggerFactory()).getTurboFilterList()).isEmpty();
	}

	@Test
	@Order(2)
	void shouldExposeEveryMetricThatDashboardAndAlertsUse() {
		Set<String> used = new TreeSet<>(PromQlNames.usedIn(PromQlNames.dashboard()));
		used.addAll(PromQlNames.usedIn(PromQlNames.rules()));
		assertThat(used).hasSizeGreaterThan(20);

		// the GC pause timer has a series only once a collection happened: make one, as any running instance has.
		// The JVM reports the pause by an asynchronous notification, so the timer appears a moment later.
		await("every metric the dashboard and alerts use exposed").atMost(PATIENCE).untilAsserted(() -> {
			System.gc();
			assertThat(PromQlNames.exposedIn(scrape().text())).containsAll(used);
		});
	}

	@Test
	@Order(3)
	void shouldBeScrapedByRealPrometheus() throws Exception {
		int prometheusPort = FreePorts.next();
		Process server = prometheus("first", prometheusPort, "");
		try {
			ApiClient prometheusApi = new ApiClient(prometheusPort);
			String query = URLEncoder.encode("valueguard_key_stage_records_total{outcome=\"claimed\"}",
					StandardCharsets.UTF_8);
			await("Prometheus has scraped the pipeline counters").atMost(PATIENCE).ignoreExceptions()
				.untilAsserted(() -> {
					JsonNode answer = prometheusApi.get("/api/v1/query?query=" + query).json();
					assertThat(answer.get("status").asString()).isEqualTo("success");
					JsonNode result = answer.get("data").get("result");
					assertThat(result.size()).isEqualTo(1);
					assertThat(result.get(0).get("value").get(1).asString()).isEqualTo("11");
				});
		}
		finally {
			server.destroy();
			server.waitFor();
		}
	}

	@Test
	@Order(4)
	void shouldScrapeCleanlyWhileStoresRestoreAfterRestart() {
		app.close();
		// a fresh state directory: both stores restore from their changelogs
		app = start("second");
		await("restore counted").atMost(PATIENCE).untilAsserted(() -> {
			Scrape scrape = scrape();
			assertThat(scrape.sum("valueguard_restore_records_restored_total", "store=\"bindings\"").orElse(0))
				.isPositive();
			assertThat(scrape.sum("valueguard_restore_duration_seconds_count", "store=\"owners\"").orElse(0))
				.isPositive();
			assertThat(scrape.values("kafka_stream_state_estimate_num_keys", "store=\"bindings\"")).isNotEmpty();
		});
		assertThat(api.owner("v0").json().get("key").asString()).isEqualTo("k5");
	}

	/**
	 * After a workload with claims, evictions, a DLQ record, a restore (the instance of {@link Order} 4) and lookups
	 * forwarded to a second instance, a real Prometheus scrapes both instances as a Kubernetes install would label
	 * them, and evaluates every query of every panel of the dashboard, with its variables expanded as Grafana would
	 * for "All": each must return a series, except the panels whose description says they show only rare events, and
	 * the lookup panels must show the forwarded route with a rate. The alert rules run in the same Prometheus (with
	 * their hold durations cut to seconds): each must evaluate without error, and the DLQ alert must fire.
	 */
	@Test
	@Order(5)
	void shouldShowDataInEveryPanelAndFireTheAlertsTheWorkloadTriggers() throws Exception {
		int peerPort = FreePorts.next();
		try (ConfigurableApplicationContext peer = launch("peer", peerPort)) {
			showDataInEveryPanelAndFireAlerts(peerPort);
		}
	}

	private void showDataInEveryPanelAndFireAlerts(int peerPort) throws Exception {
		for (int i = 0; i < 6; i++) {
			api.claim("d" + i, "w" + (i % 3));
		}
		// a key the peer holds: asked of the first instance, its lookups are forwarded
		String peer = "localhost:" + peerPort;
		String forwardedKey = await("a key held by the peer").atMost(PATIENCE).until(() -> {
			for (int i = 0; i < 6; i++) {
				ApiClient.Reply reply = api.binding("d" + i);
				if (reply.status() == 200
						&& peer.equals(reply.headers().firstValue("X-ValueGuard-Served-By").orElse(""))) {
					return "d" + i;
				}
			}
			return null;
		}, (key) -> key != null);
		try (KafkaProbe kafka = new KafkaProbe(brokers)) {
			kafka.send("valueguard.claims", utf8("poison"), new byte[] { (byte) 0xFF }, System.currentTimeMillis());
		}
		Path rules = work.resolve("alerts.yaml");
		Files.writeString(rules, Files.readString(Path.of("helm", "valueguard", "rules", "valueguard-alerts.yaml"))
			.replaceAll("(?m)^(\\s+for:) .*$", "$1 2s"));
		int prometheusPort = FreePorts.next();
		Process server = prometheus("panels", prometheusPort, """
				rule_files: ["%s"]
				""".formatted(rules.toAbsolutePath()), peerPort);
		try {
			ApiClient prometheus = new ApiClient(prometheusPort);
			List<DashboardQueries.Query> queries = DashboardQueries.of(
					Path.of("helm", "valueguard", "dashboards", "valueguard.json"),
					Map.of("namespace", "valueguard", "instance", ".*", "store", ".*"), "1m");
			assertThat(queries).hasSizeGreaterThan(25);
			await("every panel shows data").atMost(PATIENCE).pollInterval(Duration.ofSeconds(2)).untilAsserted(() -> {
				// a rate needs lookups while Prometheus watches
				assertThat(api.binding(forwardedKey).headers().firstValue("X-ValueGuard-Served-By")).hasValue(peer);
				for (DashboardQueries.Query query : queries) {
					JsonNode result = evaluate(prometheus, query);
					if (!query.rare()) {
						assertThat(result.size()).as(query.panel() + ": " + query.expression()).isPositive();
					}
					if (query.panel().startsWith("Lookup")) {
						assertThat(result).as(query.panel() + ": the forwarded route").anySatisfy((series) -> {
							assertThat(series.get("metric").path("route").asString()).isEqualTo("forwarded");
							assertThat(Double.parseDouble(series.get("value").get(1).asString())).isPositive();
						});
					}
				}
			});
			// a rate needs the counter to grow while Prometheus watches: one more poison record now
			try (KafkaProbe kafka = new KafkaProbe(brokers)) {
				kafka.send("valueguard.claims", utf8("poison"), new byte[] { (byte) 0xFE }, System.currentTimeMillis());
			}
			await("the DLQ alert fires").atMost(PATIENCE).untilAsserted(() -> {
				JsonNode groups = prometheus.get("/api/v1/rules").json().get("data").get("groups");
				assertThat(groups).isNotEmpty();
				for (JsonNode group : groups) {
					for (JsonNode rule : group.get("rules")) {
						assertThat(rule.get("health").asString()).as(rule.get("name").asString() + " "
								+ rule.path("lastError").asString()).isEqualTo("ok");
					}
				}
				JsonNode alerts = prometheus.get("/api/v1/alerts").json().get("data").get("alerts");
				assertThat(alerts).anySatisfy((alert) -> {
					assertThat(alert.get("labels").get("alertname").asString()).isEqualTo("ValueGuardDeadLetters");
					assertThat(alert.get("state").asString()).isEqualTo("firing");
				});
			});
		}
		finally {
			server.destroy();
			server.waitFor();
		}
	}

	/** The result of one dashboard query, which must evaluate without error. */
	private static JsonNode evaluate(ApiClient prometheus, DashboardQueries.Query query) {
		JsonNode answer = prometheus
			.get("/api/v1/query?query=" + URLEncoder.encode(query.expression(), StandardCharsets.UTF_8))
			.json();
		assertThat(answer.get("status").asString()).as(query.panel()).isEqualTo("success");
		return answer.get("data").get("result");
	}

	/**
	 * A real Prometheus that scrapes the instance, and any other instances given, every second, labelled as a
	 * Kubernetes install labels them.
	 */
	private static Process prometheus(String name, int prometheusPort, String extra, int... others) throws Exception {
		StringBuilder targets = new StringBuilder("\"127.0.0.1:" + port + "\"");
		for (int other : others) {
			targets.append(", \"127.0.0.1:").append(other).append('"');
		}
		Path prometheus = onPath("prometheus");
		Path config = work.resolve(name + "-prometheus.yml");
		Files.writeString(config, """
				global:
				  scrape_interval: 1s
				  evaluation_interval: 1s
				%s
				scrape_configs:
				  - job_name: valueguard
				    metrics_path: /actuator/prometheus
				    static_configs:
				      - targets: [%s]
				        labels:
				          namespace: valueguard
				""".formatted(extra, targets));
		return new ProcessBuilder(prometheus.toString(), "--config.file=" + config,
				"--storage.tsdb.path=" + work.resolve(name + "-tsdb"), "--web.listen-address=127.0.0.1:" + prometheusPort)
			.redirectErrorStream(true)
			.redirectOutput(work.resolve(name + "-prometheus.log").toFile())
			.start();
	}

	private static Scrape scrape() {
		ApiClient.Reply reply = api.get("/actuator/prometheus");
		assertThat(reply.status()).isEqualTo(200);
		return new Scrape(reply.body());
	}

	private static Path onPath(String program) {
		for (String dir : System.getenv("PATH").split(java.io.File.pathSeparator)) {
			Path candidate = Path.of(dir, program);
			if (Files.isExecutable(candidate)) {
				return candidate;
			}
		}
		assertThat(System.getenv("CI")).as(program + " must be installed on CI (.ci/run installs it)").isNull();
		assumeTrue(false, program + " is not installed (apt-get install prometheus)");
		throw new IllegalStateException("unreachable");
	}


}
