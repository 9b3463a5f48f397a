package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.valueguard.support.ApiClient;
import io.valueguard.support.InputRecord;
import io.valueguard.support.BrokerProcess;
import io.valueguard.support.ChildJvm;
import io.valueguard.support.InstanceProcess;
import io.valueguard.support.ReferenceModel;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * ValueGuard's throughput against the application a user would write without it: Kafka Streams reading the claims
 * topic into {@code toTable(Materialized.as(...))} (RocksDB, changelog) and writing it to an output topic, with the
 * same guarantee ({@link BaselineMain}). A broker runs in a JVM of its own; the claims topic is preloaded once; then,
 * for each setting, the baseline and ValueGuard (the packaged service) run one after the other over the whole topic,
 * each in a fresh JVM with the same heap. Time runs from the moment the application (for ValueGuard its key stage) is
 * RUNNING to the moment every consumer group of the application has caught up: committed offsets at the last stable
 * offsets, held for half a second so that no transaction is still open.
 * <p>
 * Not part of {@code ./mvnw verify}: run {@code scripts/benchmark.sh} (parameters there).
 */
class ThroughputBenchmark {

	private static final int CLAIMS = Integer.getInteger("valueguard.bench.claims", 300_000);

	private static final int KEYS = Integer.getInteger("valueguard.bench.keys", 100_000);

	private static final int VALUES = Integer.getInteger("valueguard.bench.values", 50_000);

	private static final int PARTITIONS = Integer.getInteger("valueguard.bench.partitions", 6);

	private static final String GUARANTEE = System.getProperty("valueguard.bench.guarantee", "exactly_once_v2");

	/**
	 * At-least-once commits every 30 s, so committed offsets would mostly measure the commit interval: then both
	 * applications are timed until their stream threads have processed every record instead.
	 */
	private static final boolean EXACTLY_ONCE = GUARANTEE.startsWith("exactly_once");

	/** Which settings to run, by their position in the table (1-based, comma-separated); all by default. */
	private static final String ONLY = System.getProperty("valueguard.bench.settings", "");

	/**
	 * Runs of each setting, baseline and ValueGuard alternating: single ratios swing by about a tenth between runs of
	 * the same code on a shared machine, so several rounds report their median too.
	 */
	private static final int ROUNDS = Integer.getInteger("valueguard.bench.rounds", 1);

	/**
	 * Whether the seed's design ({@link SeedDesignMain}) runs too, in every round of the first setting, between the
	 * plain table and ValueGuard: its claims/s, and what its table holds afterwards. Exactly-once only: at-least-once
	 * gives no committed offsets to time it by, and its stream threads' record count includes the tombstones it writes.
	 */
	private static final boolean SEED_DESIGN = Boolean.parseBoolean(System.getProperty("valueguard.bench.seed-design",
			"true"));

	/** Up to how many claims the rule's model is computed while preloading, to check each table against. */
	private static final int MODEL_LIMIT = 3_000_000;

	private static final String TOPIC = "bench.claims";

	private static final String PRODUCER_BATCH_SIZE = StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG);

	private static final String BINDER = "--spring.cloud.stream.kafka.streams.binder.configuration.";

	/**
	 * A setting: the Kafka Streams configuration both applications run with, on top of their own defaults, and more
	 * arguments for ValueGuard.
	 */
	private record Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
			List<String> valueGuardArguments, java.io.@Nullable File jar) {

		Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard) {
			this(name, baseline, valueGuard, List.of());
		}

		Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
				List<String> valueGuardArguments) {
			this(name, baseline, valueGuard, valueGuardArguments, null);
		}

	}

	/**
	 * Another build's packaged jar to run as row 9, beside this build's defaults (row 1): whether a change cost
	 * throughput, in alternating rounds of one run ({@code -Dvalueguard.bench.compare-jar=<path>}).
	 */
	private static final String COMPARE_JAR = System.getProperty("valueguard.bench.compare-jar", "");

	/**
	 * One application's run: wall time, CPU seconds of the application's and the broker's JVM meanwhile, the offsets
	 * written to each topic of the application (those starting with {@code prefix}), and how many commits its stream
	 * threads made (-1: not known).
	 */
	private record Run(String prefix, long millis, double applicationCpu, double brokerCpu, Map<String, Long> offsetsByTopic,
			long commits, List<CatchUp.ThreadLoad> threadLoads, long lastThreeQuartersMillis, Table table) {

		long offsetsWritten() {
			return this.offsetsByTopic.values().stream().mapToLong(Long::longValue).sum();
		}

		/** Offsets written per claim to each topic, the application's prefix left out. */
		String writesByTopic() {
			StringBuilder writes = new StringBuilder();
			this.offsetsByTopic.forEach((topic, offsets) -> writes.append(String.format(Locale.ROOT, "%s %.2f; ",
					topic.substring(this.prefix.length()), (double) offsets / CLAIMS)));
			return writes.toString();
		}

		double claimsPerSecond() {
			return CLAIMS / (this.millis / 1000.0);
		}

		/** Claims/s over the last three quarters of the claims, NaN when not known (at-least-once). */
		double lastThreeQuartersPerSecond() {
			return (this.lastThreeQuartersMillis > 0) ? CLAIMS * 0.75 / (this.lastThreeQuartersMillis / 1000.0)
					: Double.NaN;
		}

		/** CPU milliseconds per 1,000 claims, application and broker. */
		String cpu() {
			return String.format(Locale.ROOT, "%.1f + %.1f", this.applicationCpu * 1_000_000 / CLAIMS,
					this.brokerCpu * 1_000_000 / CLAIMS);
		}

		/** Claims per commit of each stream thread, on average. */
		String claimsPerCommit(int threads) {
			return (this.commits > 0) ? String.format(Locale.ROOT, "%,.0f", (double) CLAIMS * threads / this.commits)
					: "unknown";
		}

		/** How much of the run the application's busiest kind of thread ran on a core. */
		String busiestThreadShare() {
			return this.threadLoads.isEmpty() ? "?"
					: String.format(Locale.ROOT, "%.2f", this.threadLoads.get(0).share());
		}

		/** The kinds of thread that spent the most CPU, with their shares of the run. */
		String busiestThreads() {
			return this.threadLoads.stream().limit(6).map(CatchUp.ThreadLoad::toString).collect(Collectors.joining(", "));
		}

		String writes() {
			return String.format(Locale.ROOT, "%.1f", (double) offsetsWritten() / CLAIMS);
		}

	}

	@Test
	void compareWithPlainTable() throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		Path work = Path.of("target", "benchmark",
				LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
		Files.createDirectories(work);
		try (BrokerProcess broker = new BrokerProcess(work).start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1))).all().get();
			ReferenceModel model = (CLAIMS <= MODEL_LIMIT) ? new ReferenceModel() : null;
			long preload = preload(broker.bootstrapServers(), model);
			Map<String, String> rule = (model != null) ? model.bindings() : null;
			System.out.printf(Locale.ROOT, "Preloaded %,d claims (%,d keys, %,d values, %d partitions) in %.1f s%n",
					CLAIMS, KEYS, VALUES, PARTITIONS, preload / 1000.0);
			// each row: the baseline's settings and ValueGuard's, on top of their own defaults
			List<Setting> settings = List.of(new Setting("defaults", Map.of(), Map.of()),
					new Setting("ValueGuard at metrics.recording.level=DEBUG", Map.of(),
							Map.of(StreamsConfig.METRICS_RECORDING_LEVEL_CONFIG, "DEBUG")),
					new Setting("ValueGuard with Kafka's 16 KiB producer batches", Map.of(),
							Map.of(PRODUCER_BATCH_SIZE, "16384")),
					new Setting("both with 128 KiB producer batches", Map.of(PRODUCER_BATCH_SIZE, "131072"), Map.of()),
					new Setting("both at commit.interval.ms=1000", Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000"),
							Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000")),
					// a large keyspace: stores that outgrow the default 64 MB block cache, and the heap's recent entries
					new Setting("ValueGuard with a 256 MB block cache", Map.of(), Map.of(),
							List.of("--valueguard.rocksdb.block-cache-size=256MB")),
					new Setting("ValueGuard remembering 1,000,000 recent entries per stage", Map.of(), Map.of(),
							List.of("--valueguard.store.recent-entries=1000000")),
					new Setting("ValueGuard with both", Map.of(), Map.of(), List.of(
							"--valueguard.rocksdb.block-cache-size=256MB", "--valueguard.store.recent-entries=1000000")));
			if (!COMPARE_JAR.isBlank()) {
				settings = new ArrayList<>(settings);
				settings.add(new Setting("ValueGuard from " + COMPARE_JAR, Map.of(), Map.of(), List.of(),
						new java.io.File(COMPARE_JAR)));
			}
			// a fresh broker JVM is still compiling its hot paths: warm it up with one run of each, not reported
			runBaseline(broker, admin, work, settings.get(0));
			runValueGuard(broker, admin, work, settings.get(0));
			StringBuilder report = new StringBuilder();
			StringBuilder details = new StringBuilder();
			report.append(String.format(Locale.ROOT,
					"%,d claims, %,d keys, %,d values, %d partitions, %s, one stream thread per application%n%n", CLAIMS,
					KEYS, VALUES, PARTITIONS, GUARANTEE));
			report.append("| setting | baseline | ValueGuard | ratio | CPU ms per 1,000 claims, application + broker: "
					+ "baseline / ValueGuard | offsets written per claim: baseline / ValueGuard | busiest thread's share of "
					+ "the run: baseline / ValueGuard | ratio over the last three quarters of the claims |\n"
					+ "| --- | --- | --- | --- | --- | --- | --- | --- |\n");
			System.out.print(report);
			StringBuilder seedReport = new StringBuilder();
			for (int i = 0; i < settings.size(); i++) {
				if (!ONLY.isBlank() && !List.of(ONLY.split(",")).contains(Integer.toString(i + 1))) {
					continue;
				}
				Setting setting = settings.get(i);
				List<Double> ratios = new ArrayList<>();
				List<Double> laterRatios = new ArrayList<>();
				for (int round = 1; round <= ROUNDS; round++) {
					Run baseline = runBaseline(broker, admin, work, setting);
					Run seed = (SEED_DESIGN && EXACTLY_ONCE && i == 0) ? runSeedDesign(broker, admin, work, setting) : null;
					Run valueGuard = runValueGuard(broker, admin, work, setting);
					if (seed != null) {
						String row = seedRow(round, baseline, seed, valueGuard, rule);
						seedReport.append(row);
						System.out.print(row);
					}
					ratios.add(valueGuard.claimsPerSecond() / baseline.claimsPerSecond());
					String name = (ROUNDS > 1) ? setting.name() + ", round " + round : setting.name();
					double lastThreeQuarters = valueGuard.lastThreeQuartersPerSecond()
							/ baseline.lastThreeQuartersPerSecond();
					laterRatios.add(lastThreeQuarters);
					String row = String.format(Locale.ROOT,
							"| %s | %,.0f claims/s | %,.0f claims/s | %.2f | %s / %s | %s / %s | %s / %s | %s |%n",
							name, baseline.claimsPerSecond(), valueGuard.claimsPerSecond(),
							ratios.get(ratios.size() - 1), baseline.cpu(), valueGuard.cpu(), baseline.writes(),
							valueGuard.writes(), baseline.busiestThreadShare(), valueGuard.busiestThreadShare(),
							ratio(lastThreeQuarters));
					report.append(row);
					System.out.print(row);
					details.append(String.format(Locale.ROOT,
							"%s: ValueGuard's offsets per claim by topic: %s claims per commit of each stage: %s; CPU "
									+ "by thread, share of the run: baseline: %s; ValueGuard: %s%n",
							name, valueGuard.writesByTopic(), valueGuard.claimsPerCommit(2), baseline.busiestThreads(),
							valueGuard.busiestThreads()));
				}
				if (ROUNDS > 1) {
					details.append(String.format(Locale.ROOT,
							"%s: median ratio of %d rounds %s (%s); over the last three quarters %s (%s)%n",
							setting.name(), ROUNDS, ratio(median(ratios)), joined(ratios), ratio(median(laterRatios)),
							joined(laterRatios)));
				}
			}
			if (!seedReport.isEmpty()) {
				report.append('\n').append(SEED_HEADER).append(seedReport);
			}
			report.append('\n').append(details);
			System.out.println(details);
			Files.writeString(work.resolve("report.md"), report);
		}
		finally {
			BenchInstances.dropData(work);
		}
	}

	private static final String SEED_HEADER = "| round | plain table | seed's design | ValueGuard | ValueGuard / seed's "
			+ "design | values held by two or more keys: seed's design / ValueGuard | keys holding a value: seed's design "
			+ "/ ValueGuard / the rule | keys whose value differs from the rule's: seed's design / ValueGuard |\n"
			+ "| --- | --- | --- | --- | --- | --- | --- | --- |\n";

	private static String seedRow(int round, Run baseline, Run seed, Run valueGuard, Map<String, String> rule) {
		return String.format(Locale.ROOT, "| %d | %,.0f claims/s | %,.0f claims/s | %,.0f claims/s | %.2f | %,d / %,d | "
				+ "%,d / %,d / %s | %s / %s |%n", round, baseline.claimsPerSecond(), seed.claimsPerSecond(),
				valueGuard.claimsPerSecond(), valueGuard.claimsPerSecond() / seed.claimsPerSecond(),
				seed.table().sharedValues(), valueGuard.table().sharedValues(), seed.table().bindings().size(),
				valueGuard.table().bindings().size(), (rule != null) ? String.format(Locale.ROOT, "%,d", rule.size()) : "?",
				seed.table().differencesFrom(rule), valueGuard.table().differencesFrom(rule));
	}

	private static String joined(List<Double> ratios) {
		return ratios.stream().map(ThroughputBenchmark::ratio).collect(Collectors.joining(", "));
	}

	// at-least-once commits every 30 s: no committed progress to time the last three quarters by
	private static String ratio(double ratio) {
		return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.2f", ratio);
	}

	private static double median(List<Double> values) {
		List<Double> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

	private static long preload(String bootstrapServers, @Nullable ReferenceModel model) {
		Random random = new Random(42);
		long start = System.nanoTime();
		long base = System.currentTimeMillis();
		try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all",
				ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024),
				new ByteArraySerializer(), new ByteArraySerializer())) {
			for (int i = 0; i < CLAIMS; i++) {
				byte[] key = ("user-" + random.nextInt(KEYS)).getBytes(StandardCharsets.UTF_8);
				// 8% tombstones; timestamps jittered by a second either way
				byte[] value = (random.nextInt(100) < 8) ? null
						: ("value-" + random.nextInt(VALUES)).getBytes(StandardCharsets.UTF_8);
				long timestamp = base + i / 10 - 1_000 + random.nextInt(2_000);
				producer.send(new ProducerRecord<>(TOPIC, null, timestamp, key, value));
				if (model != null) {
					model.apply(new InputRecord(new String(key, StandardCharsets.UTF_8),
							(value != null) ? new String(value, StandardCharsets.UTF_8) : null, timestamp));
				}
			}
			producer.flush();
		}
		return (System.nanoTime() - start) / 1_000_000;
	}

	/**
	 * Offsets written to the topics an application created (outputs, changelogs, its internal topics): records plus
	 * one transaction marker per partition and transaction.
	 */
	private static Map<String, Long> offsetsWritten(Admin admin, String prefix) throws Exception {
		Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
		for (var topic : admin.describeTopics(admin.listTopics().names().get()
			.stream()
			.filter((name) -> name.startsWith(prefix))
			.toList()).allTopicNames().get().values()) {
			topic.partitions()
				.forEach((partition) -> ends.put(new TopicPartition(topic.name(), partition.partition()),
						OffsetSpec.latest()));
		}
		Map<String, Long> byTopic = new java.util.TreeMap<>();
		admin.listOffsets(ends)
			.all()
			.get()
			.forEach((partition, end) -> byTopic.merge(partition.topic(), end.offset(), Long::sum));
		return byTopic;
	}

	/** Records processed by both stages' stream threads, from the instance's metrics endpoint. */
	private static long processed(InstanceProcess instance) {
		return threadMetric(instance, "process.total");
	}

	/** A stream-thread metric of both stages, summed; -1 before the threads report it. */
	private static long threadMetric(InstanceProcess instance, String name) {
		ApiClient.Reply reply = instance.api().get("/actuator/metrics/kafka.stream.thread." + name);
		return (reply.status() == 200) ? reply.json().get("measurements").get(0).get("value").asLong() : -1;
	}

	private static long endOffsets(Admin admin, String topic) throws Exception {
		Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
		for (int partition = 0; partition < PARTITIONS; partition++) {
			ends.put(new TopicPartition(topic, partition), OffsetSpec.latest());
		}
		return admin.listOffsets(ends).all().get().values().stream().mapToLong((end) -> end.offset()).sum();
	}


	/** From RUNNING until the plain table, in a JVM of its own, has read every claim. */
	private static Run runBaseline(BrokerProcess broker, Admin admin, Path work, Setting setting) throws Exception {
		String applicationId = "bench-baseline-" + UUID.randomUUID().toString().substring(0, 8);
		String output = applicationId + "-out";
		return runStandalone(broker, admin, work, setting, new Standalone(BaselineMain.class, applicationId,
				List.of(output), List.of(TOPIC, output), Set.of(TOPIC), null));
	}

	/**
	 * From RUNNING until the seed's design, in a JVM of its own, has read every claim and every tombstone it wrote
	 * back; then its output topic read as a table.
	 */
	private static Run runSeedDesign(BrokerProcess broker, Admin admin, Path work, Setting setting) throws Exception {
		String applicationId = "bench-seed-" + UUID.randomUUID().toString().substring(0, 8);
		String output = applicationId + "-out";
		String tombstones = applicationId + "-tombstones";
		String owners = applicationId + "-owners";
		return runStandalone(broker, admin, work, setting, new Standalone(SeedDesignMain.class, applicationId,
				List.of(output, tombstones, owners), List.of(TOPIC, output, tombstones, owners),
				Set.of(TOPIC, tombstones), output));
	}

	/**
	 * A Kafka Streams application in a JVM of its own, started by its main class with the bootstrap servers, its
	 * application id, {@code arguments}, a state directory and its settings.
	 *
	 * @param topics the topics to create first
	 * @param inputs what it must have caught up with
	 * @param table the topic to read as a table afterwards, or null
	 */
	private record Standalone(Class<?> main, String applicationId, List<String> topics, List<String> arguments,
			Set<String> inputs, @Nullable String table) {

	}

	private static Run runStandalone(BrokerProcess broker, Admin admin, Path work, Setting setting,
			Standalone application) throws Exception {
		String bootstrapServers = broker.bootstrapServers();
		String applicationId = application.applicationId();
		admin.createTopics(application.topics().stream().map((topic) -> new NewTopic(topic, PARTITIONS, (short) 1)).toList())
			.all()
			.get();
		Path log = work.resolve(applicationId + ".log");
		Path processed = work.resolve(applicationId + ".processed");
		List<String> command = new ArrayList<>(List.of(ChildJvm.java()));
		command.addAll(BenchInstances.jvmOptions(work, applicationId));
		command.add("-Dvalueguard.bench.processed-file=" + processed.toAbsolutePath());
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), application.main().getName(),
				bootstrapServers, applicationId));
		command.addAll(application.arguments());
		command.add(work.resolve("state").toString());
		command.add(StreamsConfig.PROCESSING_GUARANTEE_CONFIG + "=" + GUARANTEE);
		setting.baseline().forEach((name, value) -> command.add(name + "=" + value));
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(log.toFile())
			.start();
		try {
			CatchUp catchUp = new CatchUp(admin, PARTITIONS, Map.of(applicationId, application.inputs()))
				.watching(process.pid(), broker.pid())
				.progressOf(applicationId, TOPIC, CLAIMS);
			if (!EXACTLY_ONCE) {
				catchUp.doneWhen(() -> Files.exists(processed) && Files.readString(processed).equals(Long.toString(CLAIMS)));
			}
			long millis = catchUp.time(() -> Files.exists(log) && Files.readString(log).contains("RUNNING"), process);
			return new Run(applicationId + "-", millis, catchUp.cpuSeconds(process.pid()), catchUp.cpuSeconds(broker.pid()),
					offsetsWritten(admin, applicationId), -1, catchUp.threadLoads(process.pid()),
					catchUp.lastThreeQuartersMillis(),
					(application.table() != null) ? Table.read(bootstrapServers, application.table()) : Table.EMPTY);
		}
		finally {
			process.destroy();
			process.waitFor();
		}
	}

	/** From RUNNING until both stages, the packaged service, have read every claim, command and verdict. */
	private static Run runValueGuard(BrokerProcess broker, Admin admin, Path work, Setting setting) throws Exception {
		String bootstrapServers = broker.bootstrapServers();
		String prefix = "bench-vg-" + UUID.randomUUID().toString().substring(0, 8);
		List<String> arguments = BenchInstances.arguments(prefix, TOPIC, PARTITIONS,
				BINDER + StreamsConfig.PROCESSING_GUARANTEE_CONFIG + "=" + GUARANTEE);
		setting.valueGuard().forEach((name, value) -> arguments.add(BINDER + name + "=" + value));
		arguments.addAll(setting.valueGuardArguments());
		arguments.addAll(BenchInstances.EXTRA_ARGUMENTS);
		try (InstanceProcess instance = new InstanceProcess(prefix, work, bootstrapServers, arguments)
			.jvmOptions(BenchInstances.jvmOptions(work, prefix).toArray(String[]::new))) {
			if (setting.jar() != null) {
				instance.jar(setting.jar());
			}
			instance.start();
			Map<String, Set<String>> inputs = new LinkedHashMap<>();
			inputs.put(prefix + "-keys", Set.of(TOPIC, prefix + "-eviction-feedback"));
			inputs.put(prefix + "-values", Set.of(prefix + "-owner-commands"));
			CatchUp catchUp = new CatchUp(admin, PARTITIONS, inputs).watching(instance.pid(), broker.pid())
				.progressOf(prefix + "-keys", TOPIC, CLAIMS);
			if (!EXACTLY_ONCE) {
				// every claim, command and verdict processed: without transactions, end offsets count records
				catchUp.doneWhen(() -> processed(instance) == CLAIMS
						+ endOffsets(admin, prefix + "-owner-commands") + endOffsets(admin, prefix + "-eviction-feedback"));
			}
			long millis = catchUp.time(() -> BenchInstances.running(instance, prefix), null);
			Run run = new Run(prefix, millis, catchUp.cpuSeconds(instance.pid()), catchUp.cpuSeconds(broker.pid()),
					offsetsWritten(admin, prefix), threadMetric(instance, "commit.total"),
					catchUp.threadLoads(instance.pid()), catchUp.lastThreeQuartersMillis(),
					Table.read(bootstrapServers, prefix + ".bindings"));
			instance.stop();
			return run;
		}
	}

}
