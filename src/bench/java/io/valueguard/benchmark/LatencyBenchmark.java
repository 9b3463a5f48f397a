package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.ToLongFunction;

import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.GcInfo;
import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.EvictionEventSerde;
import io.valueguard.messages.Verdict;
import io.valueguard.support.BrokerProcess;
import io.valueguard.support.GcLog;
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

	/**
	 * Load before the measured seconds: the JIT compilers of the broker, the instance and the load generator take up
	 * to a core between them for the first 20 to 30 s (docs/benchmarks.md), which is start-up, not the steady state
	 * the goal is about.
	 */
	private static final long WARM_UP_MILLIS = 1000L * Integer.getInteger("valueguard.bench.warm-up-seconds", 30);

	/** Where earlier runs started measuring; reported beside the steady state, to compare with them. */
	private static final long EARLY_MILLIS = 10_000;

	/** The instance under load, and the prefix of its topics. */
	private static final String LIVE = "bench-vg-live";

	/** The goal's bound: seconds of load in which an eviction took longer are listed in the report. */
	private static final long SLOW_MILLIS = 500;



	@Test
	void claimToEvictionAtHalfTheMaximumThroughput() throws Exception {
		Path work = BenchInstances.workDirectory("latency-");
		try (BrokerProcess broker = new BrokerProcess(work)
			.jvmOptions(GcLog.option(BenchInstances.gcLogFile(work, "broker")), safepointLog(work, "broker"))
			.start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			int rate = RATE;
			String maximum = "given";
			if (rate == 0) {
				double claimsPerSecond = maximumThroughput(broker, admin, work);
				rate = (int) (claimsPerSecond / 2);
				maximum = String.format(Locale.ROOT, "%,.0f claims/s measured first", claimsPerSecond);
			}
			List<String> commits = new ArrayList<>();
			LoadGeneratorPauses pauses = new LoadGeneratorPauses();
			Load load = underLoad(broker, admin, work, rate, commits);
			List<Latency> measured = load.from(WARM_UP_MILLIS);
			List<Long> latencies = sorted(measured, Latency::total);
			List<Long> early = sorted(load.from(EARLY_MILLIS), Latency::total);
			// a slow hour can carry a backlog out of the warm-up into the first measured seconds; the second half
			// of the measured load is the steady state alone, which separates settings better
			List<Long> lastHalf = sorted(load.from(WARM_UP_MILLIS + SECONDS * 500L), Latency::total);
			List<Long> untilApplied = sorted(measured, Latency::untilApplied);
			List<Long> afterApplied = sorted(measured, (latency) -> latency.total() - latency.untilApplied());
			String report = String.format(Locale.ROOT,
					"%d partitions, %,d keys, %,d values, exactly_once_v2, defaults; %,d claims/s for %d s after %d s of "
							+ "warm-up (maximum: %s)%n%n| measured | evictions | p50 | p90 | p99 | max |%n"
							+ "| --- | --- | --- | --- | --- | --- |%n%s%s%s",
					PARTITIONS, KEYS, VALUES, rate, SECONDS, WARM_UP_MILLIS / 1000, maximum,
					row("after the warm-up", latencies),
					row("the last " + SECONDS / 2 + " s of the load", lastHalf),
					row("from the " + EARLY_MILLIS / 1000 + "th second, warm-up included", early))
					+ String.format(Locale.ROOT, "%nWhere the time went: from the claim to the key stage applying the "
							+ "verdict (the eviction event's own timestamp: key stage, its commit, value stage, its "
							+ "commit), and from then until the consumer got the event (the key stage's next commit):"
							+ "%n%n| part | p50 | p99 |%n| --- | --- | --- |%n| until applied | %d ms | %d ms |%n"
							+ "| applied until seen | %d ms | %d ms |%n", percentile(untilApplied, 50),
							percentile(untilApplied, 99), percentile(afterApplied, 50), percentile(afterApplied, 99))
					+ String.format(Locale.ROOT, "%nCommit latency of each stage's stream thread, average and maximum "
							+ "over the last 30 s of load (Kafka's commit-latency metrics):%n%n| stage | average | "
							+ "maximum |%n| --- | --- | --- |%n%s", String.join("", commits))
					+ slowSeconds(measured) + pauses.report(load.start() + WARM_UP_MILLIS)
					+ collectorPauses(work, load);
			System.out.println(report);
			Files.writeString(work.resolve("report.md"), report);
		}
		finally {
			BenchInstances.dropData(work);
		}
	}

	/**
	 * The load generator's own GC pauses (this JVM: producer, consumer and the latencies it keeps), which a measured
	 * latency would include, to tell them from the pipeline's.
	 */
	private static final class LoadGeneratorPauses {

		/** Start (epoch milliseconds) and duration of each pause. */
		private final List<long[]> pauses = Collections.synchronizedList(new ArrayList<>());

		LoadGeneratorPauses() {
			long jvmStart = ManagementFactory.getRuntimeMXBean().getStartTime();
			for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
				((NotificationEmitter) collector).addNotificationListener((notification, handback) -> {
					if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(notification.getType())) {
						GcInfo info = GarbageCollectionNotificationInfo
							.from((CompositeData) notification.getUserData())
							.getGcInfo();
						this.pauses.add(new long[] { jvmStart + info.getStartTime(), info.getDuration() });
					}
				}, null, null);
			}
		}

		String report(long from) {
			synchronized (this.pauses) {
				List<long[]> measured = this.pauses.stream().filter((pause) -> pause[0] >= from).toList();
				return String.format(Locale.ROOT, "%nThe load generator's own GC (this JVM) in the measured seconds: %d "
						+ "collections, %d ms in all, the longest %d ms%n", measured.size(),
						measured.stream().mapToLong((pause) -> pause[1]).sum(),
						measured.stream().mapToLong((pause) -> pause[1]).max().orElse(0));
			}
		}

	}

	private static String row(String measured, List<Long> latencies) {
		return String.format(Locale.ROOT, "| %s | %,d | %d ms | %d ms | %d ms | %d ms |%n", measured, latencies.size(),
				percentile(latencies, 50), percentile(latencies, 90), percentile(latencies, 99),
				latencies.get(latencies.size() - 1));
	}

	/** Every eviction measured, from the first claim of the load on ({@code start}, epoch milliseconds). */
	private record Load(long start, List<Latency> latencies) {

		List<Latency> from(long millis) {
			return this.latencies.stream().filter((latency) -> latency.claimed() >= this.start + millis).toList();
		}

	}

	/**
	 * One eviction: when its claim was produced (epoch milliseconds), claim to consumer, and the part until the key
	 * stage applied the verdict, in milliseconds.
	 */
	private record Latency(long claimed, long total, long untilApplied) {

	}

	/**
	 * When the tail happened: each second of load (by the time its claims were produced) in which an eviction took
	 * longer than {@link #SLOW_MILLIS}, with the wall-clock time, to be read beside the GC logs and recordings.
	 */
	private static String slowSeconds(List<Latency> measured) {
		Map<Long, long[]> seconds = new TreeMap<>();
		for (Latency latency : measured) {
			long[] second = seconds.computeIfAbsent(latency.claimed() / 1000, (key) -> new long[3]);
			second[0]++;
			if (latency.total() > SLOW_MILLIS) {
				second[1]++;
			}
			second[2] = Math.max(second[2], latency.total());
		}
		StringBuilder rows = new StringBuilder();
		long slow = 0;
		for (Map.Entry<Long, long[]> second : seconds.entrySet()) {
			long[] counts = second.getValue();
			slow += counts[1];
			if (counts[1] > 0) {
				rows.append(String.format(Locale.ROOT, "| %s | %,d | %,d | %,d ms |%n",
						DateTimeFormatter.ISO_LOCAL_TIME.format(LocalDateTime.ofInstant(
								Instant.ofEpochSecond(second.getKey()), ZoneId.systemDefault())),
						counts[0], counts[1], counts[2]));
			}
		}
		return String.format(Locale.ROOT, "%nSeconds of load with evictions over %d ms (%,d of %,d evictions, in %d of "
				+ "%d seconds):%n%n| second | evictions | over %d ms | max |%n| --- | --- | --- | --- |%n%s", SLOW_MILLIS,
				slow, measured.size(), rows.toString().lines().count(), seconds.size(), SLOW_MILLIS, rows);
	}

	/** A log of a JVM's safepoints (every stop, GC or not, and how long its threads took to reach it). */
	private static String safepointLog(Path work, String name) {
		return "-Xlog:safepoint:file=" + work.resolve(name + "-safepoint.log").toAbsolutePath() + ":time,uptime";
	}

	/**
	 * What the collectors of the instance under load and of the broker paused over the measured seconds, from their
	 * GC logs, and the instance's over its whole run: a tail that moves with a collector's settings shows here.
	 */
	private static String collectorPauses(Path work, Load load) {
		Instant from = Instant.ofEpochMilli(load.start() + WARM_UP_MILLIS);
		Instant to = from.plusSeconds(SECONDS);
		GcLog instance = GcLog.read(BenchInstances.gcLogFile(work, LIVE));
		return String.format(Locale.ROOT,
				"%nThe collectors' pauses in the measured seconds (GC logs beside the report): the instance's %s; the "
						+ "broker's %s. The instance's from start-up until it stopped: %s%n",
				instance.between(from, to).summary(),
				GcLog.read(BenchInstances.gcLogFile(work, "broker")).between(from, to).summary(), instance.summary());
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
	private static Load underLoad(BrokerProcess broker, Admin admin, Path work, int rate, List<String> commits)
			throws Exception {
		String topic = "bench.live";
		admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
		String prefix = LIVE;
		List<Latency> latencies = Collections.synchronizedList(new ArrayList<>());
		AtomicBoolean producing = new AtomicBoolean(true);
		// the instance under load also logs its safepoints, beside its GC log and a flight recording when asked for
		List<String> options = new ArrayList<>(BenchInstances.valueGuardJvmOptions(work, prefix));
		options.add(safepointLog(work, "instance"));
		try (InstanceProcess instance = instance(broker, work, prefix, topic)
			.jvmOptions(options.toArray(String[]::new))) {
			instance.start();
			long deadline = System.currentTimeMillis() + 180_000;
			while (!BenchInstances.running(instance, prefix) || !instance.ready()) {
				if (System.currentTimeMillis() > deadline) {
					throw new IllegalStateException("the instance did not get ready, see " + instance.logFile());
				}
				Thread.sleep(100);
			}
			long start = System.currentTimeMillis();
			Thread consumer = new Thread(() -> consume(broker, prefix + ".evictions", start, latencies, producing),
					"evictions-consumer");
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
			synchronized (latencies) {
				writeCsv(work, latencies);
				return new Load(start, List.copyOf(latencies));
			}
		}
	}

	/** Every eviction measured, for a closer look than the report's: claimed (epoch ms), total and until applied. */
	private static void writeCsv(Path work, List<Latency> latencies) throws IOException {
		StringBuilder csv = new StringBuilder("claimed,total,until_applied\n");
		for (Latency latency : latencies) {
			csv.append(latency.claimed()).append(',').append(latency.total()).append(',')
				.append(latency.untilApplied()).append('\n');
		}
		Files.writeString(work.resolve("latencies.csv"), csv);
	}

	/**
	 * Claims stamped with the wall clock at {@code rate} per second, sent in 10 ms slices, for the warm-up and then
	 * {@link #SECONDS}.
	 */
	private static void produce(BrokerProcess broker, String topic, int rate, long start) throws InterruptedException {
		Random random = new Random(11);
		long sent = 0;
		try (KafkaProducer<byte[], byte[]> producer = producer(broker)) {
			while (true) {
				long elapsed = System.currentTimeMillis() - start;
				if (elapsed >= WARM_UP_MILLIS + SECONDS * 1000L) {
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
					if (event.reason() == Verdict.Reason.SUPERSEDED && event.evictedByTimestamp() >= measureFrom) {
						latencies.add(new Latency(event.evictedByTimestamp(), now - event.evictedByTimestamp(),
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

	/**
	 * An instance with the benchmark's heap and JVM options (the maximum is measured as the load runs, with
	 * {@code valueguard.bench.jvm-options}, {@code valueguard.bench.valueguard-jvm-options} and
	 * {@code valueguard.bench.valueguard-environment} too); the one under load adds its GC and safepoint logs, and a
	 * recording when asked for.
	 */
	private static InstanceProcess instance(BrokerProcess broker, Path work, String prefix, String topic) {
		List<String> arguments = BenchInstances.arguments(prefix, topic, PARTITIONS);
		arguments.addAll(BenchInstances.EXTRA_ARGUMENTS);
		return new InstanceProcess(prefix, work, broker.bootstrapServers(), arguments)
			.jvmOptions(BenchInstances.valueGuardJvmOptions().toArray(String[]::new))
			.environment(BenchInstances.EXTRA_ENVIRONMENT);
	}

	private static long percentile(List<Long> sorted, int percentile) {
		if (sorted.isEmpty()) {
			throw new IllegalStateException("no eviction was measured");
		}
		return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1));
	}

}
