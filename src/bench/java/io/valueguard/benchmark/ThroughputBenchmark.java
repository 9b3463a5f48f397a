package io.valueguard.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.valueguard.support.BrokerProcess;
import io.valueguard.support.ReferenceModel;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * ValueGuard's throughput against the application a user would write without it: Kafka Streams reading the claims
 * topic into {@code toTable(Materialized.as(...))} (RocksDB, changelog) and writing it to an output topic, with the
 * same guarantee ({@link BaselineMain}). A broker runs in a JVM of its own; the claims topic is preloaded once; then,
 * for each setting, the baseline and ValueGuard (the packaged service) run one after the other over the whole topic,
 * each in a fresh JVM with the same heap, timed as {@link Runs} says.
 * <p>
 * Not part of {@code ./mvnw verify}: run {@code scripts/benchmark.sh} (parameters there).
 */
class ThroughputBenchmark {

	private static final Workload WORKLOAD = new Workload("bench.claims",
			Integer.getInteger("valueguard.bench.claims", 300_000), Integer.getInteger("valueguard.bench.keys", 100_000),
			Integer.getInteger("valueguard.bench.values", 50_000), Integer.getInteger("valueguard.bench.partitions", 6),
			System.getProperty("valueguard.bench.guarantee", "exactly_once_v2"));

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

	/** The setting of the runs that warm the broker up; scripts/perf-summary.py leaves them out. */
	static final String WARM_UP = "warm-up";

	private static final String PRODUCER_BATCH_SIZE = StreamsConfig.producerPrefix(ProducerConfig.BATCH_SIZE_CONFIG);

	/**
	 * Another build's packaged jar to run as row 9, beside this build's defaults (row 1): whether a change cost
	 * throughput, in alternating rounds of one run ({@code -Dvalueguard.bench.compare-jar=<path>}).
	 */
	private static final String COMPARE_JAR = System.getProperty("valueguard.bench.compare-jar", "");

	/**
	 * More arguments, space-separated, for one more row of this build's ValueGuard, after the compare jar's if any
	 * (row 9 without it, 10 with it): a setting beside the defaults in alternating rounds of one run
	 * ({@code -Dvalueguard.bench.row-arguments="--name=value ..."}).
	 */
	private static final List<String> ROW_ARGUMENTS = BenchInstances.spaceSeparated("valueguard.bench.row-arguments");

	/**
	 * More JVM options, space-separated, and environment variables, space-separated {@code NAME=value}, for one more
	 * row of this build's ValueGuard, after the rows above: what a deployment sets around the application, beside the
	 * defaults in alternating rounds of one run ({@code -Dvalueguard.bench.row-jvm-options="-XX:..."},
	 * {@code -Dvalueguard.bench.row-environment="MALLOC_ARENA_MAX=2"}). A {@code ;} between options starts another
	 * row ({@code "-Xms384m ; -Xms640m"}), so that several recipes run side by side in one run; the environment goes
	 * to each of them.
	 */
	private static final List<List<String>> ROW_JVM_OPTIONS = rowsOfOptions(
			System.getProperty("valueguard.bench.row-jvm-options", ""));

	private static final Map<String, String> ROW_ENVIRONMENT = BenchInstances.variables("valueguard.bench.row-environment");

	/**
	 * One more row per count, after the others: the defaults on that many instances of one application, which share
	 * its partitions ({@code -Dvalueguard.bench.instances=2,3}); what adding instances costs per claim. Exactly-once
	 * only. Their CPU is summed, and their largest resident set is the largest of any one of them; the details' CPU by
	 * thread and the commits counted are the first instance's.
	 */
	private static final List<Integer> INSTANCES = Arrays.stream(System.getProperty("valueguard.bench.instances", "")
		.split(","))
		.filter((count) -> !count.isBlank())
		.map((count) -> Integer.valueOf(count.trim()))
		.toList();

	@Test
	void compareWithPlainTable() throws Exception {
		Path work = BenchInstances.workDirectory("");
		try (BrokerProcess broker = new BrokerProcess(work).start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			ReferenceModel model = (WORKLOAD.claims() <= MODEL_LIMIT) ? new ReferenceModel() : null;
			long preload = WORKLOAD.preload(admin, broker.bootstrapServers(), model);
			Map<String, String> rule = (model != null) ? model.bindings() : null;
			System.out.printf(Locale.ROOT, "Preloaded %,d claims (%,d keys, %,d values, %d partitions) in %.1f s%n",
					WORKLOAD.claims(), WORKLOAD.keys(), WORKLOAD.values(), WORKLOAD.partitions(), preload / 1000.0);
			// each row: the baseline's settings and ValueGuard's, on top of their own defaults
			List<Setting> settings = List.of(Setting.DEFAULTS,
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
			settings = new ArrayList<>(settings);
			int compared = -1;
			if (!COMPARE_JAR.isBlank()) {
				compared = settings.size();
				settings.add(Setting.fromJar(new java.io.File(COMPARE_JAR)));
			}
			if (!ROW_ARGUMENTS.isEmpty()) {
				settings.add(new Setting("ValueGuard with " + String.join(" ", ROW_ARGUMENTS), Map.of(), Map.of(),
						ROW_ARGUMENTS));
			}
			if (ROW_JVM_OPTIONS.isEmpty() && !ROW_ENVIRONMENT.isEmpty()) {
				settings.add(Setting.withProcess(List.of(), ROW_ENVIRONMENT));
			}
			for (List<String> options : ROW_JVM_OPTIONS) {
				settings.add(Setting.withProcess(options, ROW_ENVIRONMENT));
			}
			for (int instances : INSTANCES) {
				settings.add(Setting.onInstances(instances));
			}
			// a fresh broker JVM is still compiling its hot paths: warm it up with one run of each, not reported
			Setting warmUp = settings.get(0).named(WARM_UP);
			Runs.baseline(broker, admin, work, WORKLOAD, warmUp);
			Runs.valueGuard(broker, admin, work, WORKLOAD, warmUp, null);
			StringBuilder report = new StringBuilder();
			StringBuilder details = new StringBuilder();
			report.append(String.format(Locale.ROOT,
					"%,d claims, %,d keys, %,d values, %d partitions, %s, one stream thread per application%n%n",
					WORKLOAD.claims(), WORKLOAD.keys(), WORKLOAD.values(), WORKLOAD.partitions(), WORKLOAD.guarantee()));
			report.append("| setting | baseline | ValueGuard | ratio | CPU ms per 1,000 claims, application + broker: "
					+ "baseline / ValueGuard | offsets written per claim: baseline / ValueGuard | busiest thread's share of "
					+ "the run: baseline / ValueGuard | ratio over the last three quarters of the claims | largest resident set, MiB: "
					+ "baseline / ValueGuard |\n"
					+ "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
			System.out.print(report);
			StringBuilder seedReport = new StringBuilder();
			List<Double> seedRatios = new ArrayList<>();
			List<Integer> chosen = new ArrayList<>();
			for (int i = 0; i < settings.size(); i++) {
				if (ONLY.isBlank() || List.of(ONLY.split(",")).contains(Integer.toString(i + 1))) {
					chosen.add(i);
				}
			}
			// rounds go through the chosen rows in turn, so that the machine's drift over the run (a broker warming up,
			// a neighbour's load) falls on every row alike; the table lists each row's rounds together. Each round
			// starts one row later than the one before, so that no row always runs second: in two runs the plain
			// table ran 12% slower in every round's second row (docs/benchmarks.md)
			Map<Integer, Rounds> rounds = new LinkedHashMap<>();
			chosen.forEach((i) -> rounds.put(i, new Rounds()));
			for (int round = 1; round <= ROUNDS; round++) {
				List<Integer> order = new ArrayList<>(chosen);
				Collections.rotate(order, -(round - 1));
				for (int i : order) {
					Setting setting = settings.get(i);
					Rounds row = rounds.get(i);
					Run baseline = Runs.baseline(broker, admin, work, WORKLOAD, setting);
					Run seed = (SEED_DESIGN && WORKLOAD.exactlyOnce() && i == 0)
							? Runs.seedDesign(broker, admin, work, WORKLOAD, setting) : null;
					Run valueGuard = Runs.valueGuard(broker, admin, work, WORKLOAD, setting, null);
					if (seed != null) {
						double seedRatio = valueGuard.claimsPerSecond() / seed.claimsPerSecond();
						seedRatios.add(seedRatio);
						String seedLine = seedRow(round, baseline, seed, seedRatio, valueGuard, rule);
						seedReport.append(seedLine);
						System.out.print(seedLine);
						details.append(String.format(Locale.ROOT,
								"round %d, the seed's design: CPU by thread, share of the run: %s; the broker's "
										+ "meanwhile: %s; GC from start-up until caught up: %s%n",
								round, seed.busiestThreads(), seed.brokerBusiestThreads(), seed.gc().summary()));
					}
					double ratio = valueGuard.claimsPerSecond() / baseline.claimsPerSecond();
					row.ratios.add(ratio);
					row.rates.add(valueGuard.claimsPerSecond());
					String name = (ROUNDS > 1) ? setting.name() + ", round " + round : setting.name();
					double lastThreeQuarters = valueGuard.lastThreeQuartersPerSecond()
							/ baseline.lastThreeQuartersPerSecond();
					row.laterRatios.add(lastThreeQuarters);
					String line = String.format(Locale.ROOT,
							"| %s | %,.0f claims/s | %,.0f claims/s | %.2f | %s / %s | %s / %s | %s / %s | %s | %,d / %,d |%n",
							name, baseline.claimsPerSecond(), valueGuard.claimsPerSecond(), ratio, baseline.cpu(),
							valueGuard.cpu(), baseline.writes(), valueGuard.writes(), baseline.busiestThreadShare(),
							valueGuard.busiestThreadShare(), ratio(lastThreeQuarters), baseline.peakResidentMib(),
							valueGuard.peakResidentMib());
					row.table.append(line);
					System.out.print(line);
					details.append(String.format(Locale.ROOT,
							"%s: ValueGuard's offsets per claim by topic: %s claims per commit of each stage: %s; CPU "
									+ "by thread, share of the run: baseline: %s; ValueGuard: %s; the broker's during the "
									+ "baseline: %s; during ValueGuard: %s; ms from the claims read to the end: baseline "
									+ "%d, ValueGuard %d (of %d and %d ms); the broker's requests per 1,000 claims (their "
									+ "handling ms): baseline: %s; ValueGuard: %s; GC from start-up until caught up: "
									+ "baseline: %s; ValueGuard: %s%n",
							name, valueGuard.writesByTopic(), valueGuard.claimsPerCommit(2), baseline.busiestThreads(),
							valueGuard.busiestThreads(), baseline.brokerBusiestThreads(),
							valueGuard.brokerBusiestThreads(), baseline.drainMillis(), valueGuard.drainMillis(),
							baseline.millis(), valueGuard.millis(), baseline.brokerRequestsPerThousandClaims(),
							valueGuard.brokerRequestsPerThousandClaims(), baseline.gc().summary(),
							valueGuard.gc().summary()));
				}
			}
			rounds.values().forEach((row) -> report.append(row.table));
			if (ROUNDS > 1) {
				for (Map.Entry<Integer, Rounds> each : rounds.entrySet()) {
					Rounds row = each.getValue();
					details.append(String.format(Locale.ROOT,
							"%s: median ratio of %d rounds %s (%s); over the last three quarters %s (%s)%n",
							settings.get(each.getKey()).name(), ROUNDS, ratio(Medians.of(row.ratios)), joined(row.ratios),
							ratio(Medians.of(row.laterRatios)), joined(row.laterRatios)));
				}
			}
			if (compared >= 0 && rounds.containsKey(0) && rounds.containsKey(compared)) {
				// the two builds' own rates, round by round: a ratio that no plain-table run in between can move
				List<Double> builds = new ArrayList<>();
				for (int round = 0; round < ROUNDS; round++) {
					builds.add(rounds.get(0).rates.get(round) / rounds.get(compared).rates.get(round));
				}
				details.append(String.format(Locale.ROOT,
						"this build's ValueGuard against %s's, claims/s in the same round: median %s (%s)%n",
						COMPARE_JAR, ratio(Medians.of(builds)), joined(builds)));
			}
			if (!seedReport.isEmpty()) {
				report.append('\n').append(SEED_HEADER).append(seedReport);
				details.append(String.format(Locale.ROOT,
						"ValueGuard against the seed's design, claims/s in the same round: median %s (%s)%n",
						ratio(Medians.of(seedRatios)), joined(seedRatios)));
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
			+ "design | CPU ms per 1,000 claims, application + broker: seed's design / ValueGuard | largest resident set, "
			+ "MiB: seed's design / ValueGuard | values held by two or more keys: seed's design / ValueGuard | keys "
			+ "holding a value: seed's design / ValueGuard / the rule | keys whose value differs from the rule's: seed's "
			+ "design / ValueGuard |\n"
			+ "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";

	/** Rows of space-separated options, a {@code ;} between rows; none when blank. */
	static List<List<String>> rowsOfOptions(String rows) {
		return Arrays.stream(rows.split(";"))
			.map(BenchInstances::items)
			.filter((options) -> !options.isEmpty())
			.toList();
	}

	private static String seedRow(int round, Run baseline, Run seed, double seedRatio, Run valueGuard,
			Map<String, String> rule) {
		return String.format(Locale.ROOT, "| %d | %,.0f claims/s | %,.0f claims/s | %,.0f claims/s | %.2f | %s / %s | "
				+ "%,d / %,d | %,d / %,d | %,d / %,d / %s | %s / %s |%n", round, baseline.claimsPerSecond(),
				seed.claimsPerSecond(), valueGuard.claimsPerSecond(), seedRatio, seed.cpu(), valueGuard.cpu(),
				seed.peakResidentMib(), valueGuard.peakResidentMib(), seed.table().sharedValues(),
				valueGuard.table().sharedValues(), seed.table().bindings().size(), valueGuard.table().bindings().size(),
				(rule != null) ? String.format(Locale.ROOT, "%,d", rule.size()) : "?", seed.table().differencesFrom(rule),
				valueGuard.table().differencesFrom(rule));
	}

	private static String joined(List<Double> ratios) {
		return ratios.stream().map(ThroughputBenchmark::ratio).collect(Collectors.joining(", "));
	}

	// at-least-once commits every 30 s: no committed progress to time the last three quarters by
	private static String ratio(double ratio) {
		return Double.isNaN(ratio) ? "n/a" : String.format(Locale.ROOT, "%.2f", ratio);
	}

	/** One row's rounds: its lines of the table, and the figures its summary is made of. */
	private static final class Rounds {

		private final StringBuilder table = new StringBuilder();

		private final List<Double> ratios = new ArrayList<>();

		private final List<Double> laterRatios = new ArrayList<>();

		/** ValueGuard's claims/s, to set two builds side by side. */
		private final List<Double> rates = new ArrayList<>();

	}

}
