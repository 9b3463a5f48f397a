package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.EvictionEventSerde;
import io.valueguard.messages.Eviction;
import io.valueguard.support.BrokerProcess;
import io.valueguard.support.InstanceProcess;
import io.valueguard.support.Scrape;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * End-to-end latency from a claim to the eviction it causes, at half of the maximum throughput. First the packaged
 * service catches up with a preloaded topic, which gives its maximum throughput in this run; then a fresh instance
 * takes claims produced at half that rate, stamped with the wall clock, and a {@code read_committed} consumer of the
 * evictions topic measures, for every eviction by a later claim, the time from that claim being produced to the
 * eviction arriving: what a downstream consumer sees, both stages and three commits included. The first ten seconds
 * are warm-up and left out.
 * <p>
 * Not part of {@code ./mvnw verify}: run {@code scripts/benchmark.sh latency} (parameters there).
 */
class LatencyBenchmark {

	private static final int SECONDS = Integer.getInteger("valueguard.bench.seconds", 60);

	private static final int KEYS = Integer.getInteger("valueguard.bench.keys", 100_000);

	private static final int VALUES = Integer.getInteger("valueguard.bench.values", 50_000);

	private static final int PARTITIONS = Integer.getInteger("valueguard.bench.partitions", 6);

	/** Claims per second; 0: half of the maximum measured first. */
	private static final int RATE = Integer.getInteger("valueguard.bench.rate", 0);

	private static final int PRELOAD = 300_000;

	private static final long WARM_UP_MILLIS = 10_000;

	@Test
	void claimToEvictionAtHalfTheMaximumThroughput() throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		Path work = Path.of("target", "benchmark",
				"latency-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
		Files.createDirectories(work);
		try (BrokerProcess broker = new BrokerProcess(work).start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			int rate = RATE;
			String maximum = "given";
			if (rate == 0) {
				double claimsPerSecond = maximumThroughput(broker, admin, work);
				rate = (int) (claimsPerSecond / 2);
				maximum = String.format(Locale.ROOT, "%,.0f claims/s measured first", claimsPerSecond);
			}
			List<String> commits = new ArrayList<>();
			List<Latency> measured = underLoad(broker, admin, work, rate, commits);
			List<Long> latencies = sorted(measured, Latency::total);
			List<Long> untilApplied = sorted(measured, Latency::untilApplied);
			List<Long> afterApplied = sorted(measured, (latency) -> latency.total() - latency.untilApplied());
			String report = String.format(Locale.ROOT,
					"%d partitions, %,d keys, %,d values, exactly_once_v2, defaults; %,d claims/s for %d s (maximum: "
							+ "%s)%n%n| evictions measured | p50 | p90 | p99 | max |%n| --- | --- | --- | --- | --- |%n"
							+ "| %,d | %d ms | %d ms | %d ms | %d ms |%n",
					PARTITIONS, KEYS, VALUES, rate, SECONDS, maximum, latencies.size(), percentile(latencies, 50),
					percentile(latencies, 90), percentile(latencies, 99), latencies.get(latencies.size() - 1))
					+ String.format(Locale.ROOT, "%nWhere the time went: from the claim to the key stage applying the "
							+ "verdict (the eviction event's own timestamp: key stage, its commit, value stage, its "
							+ "commit), and from then until the consumer got the event (the key stage's next commit):"
							+ "%n%n| part | p50 | p99 |%n| --- | --- | --- |%n| until applied | %d ms | %d ms |%n"
							+ "| applied until seen | %d ms | %d ms |%n", percentile(untilApplied, 50),
							percentile(untilApplied, 99), percentile(afterApplied, 50), percentile(afterApplied, 99))
					+ String.format(Locale.ROOT, "%nCommit latency of each stage's stream thread, average and maximum "
							+ "over the last 30 s of load (Kafka's commit-latency metrics):%n%n| stage | average | "
							+ "maximum |%n| --- | --- | --- |%n%s", String.join("", commits));
			System.out.println(report);
			Files.writeString(work.resolve("report.md"), report);
		}
		finally {
			BenchInstances.dropData(work);
		}
	}

	/** One eviction: claim to consumer, and the part until the key stage applied the verdict, in milliseconds. */
	private record Latency(long total, long untilApplied) {

	}

	private static List<Long> sorted(List<Latency> measured, ToLongFunction<Latency> part) {
		List<Long> values = new ArrayList<>(measured.stream().map(part::applyAsLong).toList());
		Collections.sort(values);
		return values;
	}

	/** Claims per second of the packaged service catching up with a preloaded topic. */
	private static double maximumThroughput(BrokerProcess broker, Admin admin, Path work) throws Exception {
		String topic = "bench.preloaded";
		admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
		Random random = new Random(7);
		try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
			long now = System.currentTimeMillis();
			for (int i = 0; i < PRELOAD; i++) {
				producer.send(claim(topic, random, now + i / 10));
			}
		}
		String prefix = "bench-vg-max";
		try (InstanceProcess instance = instance(broker, work, prefix, topic)) {
			instance.start();
			Map<String, Set<String>> inputs = new LinkedHashMap<>();
			inputs.put(prefix + "-keys", Set.of(topic, prefix + "-eviction-feedback"));
			inputs.put(prefix + "-values", Set.of(prefix + "-owner-commands"));
			long millis = new CatchUp(admin, PARTITIONS, inputs).time(() -> BenchInstances.running(instance, prefix), null);
			instance.stop();
			return PRELOAD / (millis / 1000.0);
		}
	}

	/**
	 * Latencies of the evictions by a later claim, after the warm-up; adds a table row per stage to {@code commits}:
	 * how long its commits took while the load ran.
	 */
	private static List<Latency> underLoad(BrokerProcess broker, Admin admin, Path work, int rate, List<String> commits)
			throws Exception {
		String topic = "bench.live";
		admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
		String prefix = "bench-vg-live";
		List<Latency> latencies = Collections.synchronizedList(new ArrayList<>());
		AtomicBoolean producing = new AtomicBoolean(true);
		try (InstanceProcess instance = instance(broker, work, prefix, topic)) {
			instance.start();
			long deadline = System.currentTimeMillis() + 180_000;
			while (!BenchInstances.running(instance, prefix) || !instance.ready()) {
				if (System.currentTimeMillis() > deadline) {
					throw new IllegalStateException("the instance did not get ready, see " + instance.logFile());
				}
				Thread.sleep(100);
			}
			long start = System.currentTimeMillis();
			Thread consumer = new Thread(() -> consume(broker, prefix + ".evictions", start + WARM_UP_MILLIS, latencies,
					producing), "evictions-consumer");
			consumer.start();
			produce(broker, topic, rate, start);
			Scrape scrape = new Scrape(instance.api().get("/actuator/prometheus").body());
			for (String stage : List.of("keys", "values")) {
				String application = "application_id=\"" + prefix + "-" + stage + "\"";
				commits.add(String.format(Locale.ROOT, "| %s | %.1f ms | %.1f ms |%n", stage,
						scrape.values("kafka_stream_thread_commit_latency_avg", application).get(0),
						scrape.values("kafka_stream_thread_commit_latency_max", application).get(0)));
			}
			// evictions of the last claims still arrive for a moment
			Thread.sleep(3_000);
			producing.set(false);
			consumer.join(30_000);
			instance.stop();
		}
		return new ArrayList<>(latencies);
	}

	/** Claims stamped with the wall clock at {@code rate} per second, sent in 10 ms slices, for {@link #SECONDS}. */
	private static void produce(BrokerProcess broker, String topic, int rate, long start) throws InterruptedException {
		Random random = new Random(11);
		long sent = 0;
		try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
			while (true) {
				long elapsed = System.currentTimeMillis() - start;
				if (elapsed >= SECONDS * 1000L) {
					return;
				}
				long due = rate * elapsed / 1000;
				for (; sent < due; sent++) {
					producer.send(claim(topic, random, System.currentTimeMillis()));
				}
				Thread.sleep(10);
			}
		}
	}

	private static void consume(BrokerProcess broker, String evictions, long measureFrom, List<Latency> latencies,
			AtomicBoolean producing) {
		try (KafkaConsumer<String, EvictionEvent> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
						ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
						ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
				new StringDeserializer(), new EvictionEventSerde().deserializer())) {
			List<TopicPartition> partitions = new ArrayList<>();
			for (int partition = 0; partition < PARTITIONS; partition++) {
				partitions.add(new TopicPartition(evictions, partition));
			}
			consumer.assign(partitions);
			while (producing.get()) {
				for (ConsumerRecord<String, EvictionEvent> record : consumer.poll(Duration.ofMillis(50))) {
					long now = System.currentTimeMillis();
					EvictionEvent event = record.value();
					if (event.reason() == Eviction.Reason.SUPERSEDED && event.evictedByTimestamp() >= measureFrom) {
						latencies.add(new Latency(now - event.evictedByTimestamp(),
								event.evictionTimestamp() - event.evictedByTimestamp()));
					}
				}
			}
		}
	}

	private static ProducerRecord<byte[], byte[]> claim(String topic, Random random, long timestamp) {
		byte[] key = ("user-" + random.nextInt(KEYS)).getBytes(StandardCharsets.UTF_8);
		byte[] value = ("value-" + random.nextInt(VALUES)).getBytes(StandardCharsets.UTF_8);
		return new ProducerRecord<>(topic, null, timestamp, key, value);
	}

	private static KafkaProducer<byte[], byte[]> producer(BrokerProcess broker) {
		return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
				ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(),
				new ByteArraySerializer());
	}

	private static InstanceProcess instance(BrokerProcess broker, Path work, String prefix, String topic) {
		return new InstanceProcess(prefix, work, broker.bootstrapServers(),
				BenchInstances.arguments(prefix, topic, PARTITIONS))
			.jvmOptions("-Xmx1g");
	}

	private static long percentile(List<Long> sorted, int percentile) {
		if (sorted.isEmpty()) {
			throw new IllegalStateException("no eviction was measured");
		}
		return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1));
	}

}
