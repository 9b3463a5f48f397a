package io.valueguard.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.valueguard.support.BrokerProcess;
import io.valueguard.support.InstanceProcess;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The cost curve: for each keyspace (100,000, 1,000,000 and 10,000,000 keys by default), twice as many claims as
 * keys for half as many values, the plain table and ValueGuard with its defaults, one instance each, one after the
 * other over the same preloaded topic; while ValueGuard takes the claims, its index and filter estimate against the
 * block cache's share for them, every 30 s ({@link IndexFilterWatch}); then, with the ValueGuard instance that took
 * the claims:
 * <ul>
 * <li>its resident memory, the largest while it took the claims and at rest afterwards, against heap + RocksDB
 * budget + 200 MiB;</li>
 * <li>what its stores take on disk once it has stopped, per million entries;</li>
 * <li>its restart with the state directory wiped: how long until it is ready, and each store's restore;</li>
 * <li>a second instance joining (one standby replica, the default): how long until it holds every store partition,
 * as active or standby, caught up; then the first stops (gracefully, as in a rolling restart) and the second takes
 * over: how long until it holds every store partition as active and caught up, and how many records that
 * restored.</li>
 * </ul>
 * The report (target/benchmark/scale-*&#47;report.md) has one row per keyspace and a plot of the curve beside it
 * ({@link CostCurve}). Not part of {@code ./mvnw verify}: run {@code scripts/benchmark.sh scale} (parameters there).
 */
class ScaleBenchmark {

	private static final List<Integer> KEYSPACES = Arrays
		.stream(System.getProperty("valueguard.bench.keyspaces", "100000,1000000,10000000").split(","))
		.map(String::trim)
		.map(Integer::valueOf)
		.toList();

	/** The heap every application gets ({@link BenchInstances#jvmOptions}) and ValueGuard's RocksDB budget. */
	private static final int HEAP_MIB = 1024;

	private static final int BLOCK_CACHE_MIB = Integer.getInteger("valueguard.bench.block-cache-mib", 64);

	/**
	 * An earlier run's report ({@code valueguard.bench.earlier-report}) whose rows for keyspaces this run leaves out go
	 * into this run's table and plot: the largest keyspace alone takes over an hour, so a curve can be measured in
	 * parts. Only from a run at the same RocksDB budget.
	 */
	private static final @Nullable String EARLIER_REPORT = System.getProperty("valueguard.bench.earlier-report");

	/** The line an earlier report gives a keyspace's restores. */
	private static final Pattern RESTORES = Pattern.compile("^([0-9,]+) keys: the wiped restart .*");

	private static final int PARTITIONS = 6;

	/**
	 * How often the index and filter estimate is sampled while ValueGuard takes the claims: where its rate falls
	 * against where {@code ValueGuardRocksDBIndexOutgrowsCache} would fire.
	 */
	private static final Duration WATCH_EVERY = Duration.ofSeconds(30);

	/** Readiness's default: a store partition at most this many records behind its changelog counts as caught up. */
	private static final long CAUGHT_UP = 1_000;

	/** One keyspace's figures. */
	record Point(Workload workload, Run baseline, Run valueGuard, long residentAtRestMib, Map<String, Long> entries,
			Map<String, Long> diskBytes, Restore wiped, long standbysMillis, Restore takeover, String indexAndFilters) {

		double ratio() {
			return this.valueGuard.claimsPerSecond() / this.baseline.claimsPerSecond();
		}

		long residentBoundMib() {
			return HEAP_MIB + BLOCK_CACHE_MIB + 200;
		}

		/** MiB on disk per million entries of a store. */
		double diskPerMillion(String store) {
			return this.diskBytes.getOrDefault(store, 0L) / 1048576.0 / (this.entries.getOrDefault(store, 0L) / 1e6);
		}

		String entriesOf(String store) {
			return String.format(Locale.ROOT, "%,d", this.entries.getOrDefault(store, 0L));
		}

	}

	/** A keyspace's row of the report: its line in the table, its restores' line under it, and its point in the plot. */
	record Row(int keys, String line, String restores, CostCurve.Rates rates) {

		static Row of(Point point) {
			int keys = point.workload().keys();
			return new Row(keys, row(point),
					String.format(Locale.ROOT, "%,d keys: the wiped restart restored %s; the takeover restored %s; %s; "
							+ "GC from start-up until caught up: plain table: %s; ValueGuard: %s", keys,
							point.wiped().describe(), point.takeover().describe(), point.indexAndFilters(),
							point.baseline().gc().summary(), point.valueGuard().gc().summary()),
					new CostCurve.Rates(keys, point.baseline().claimsPerSecond(), point.valueGuard().claimsPerSecond()));
		}

		/** The rows of an earlier run's report, which must have been measured at this run's RocksDB budget. */
		static List<Row> earlier(Path report) throws IOException {
			List<String> lines = Files.readAllLines(report);
			String budget = "RocksDB budget " + BLOCK_CACHE_MIB + " MiB";
			if (lines.isEmpty() || !lines.get(0).contains(budget)) {
				throw new IllegalArgumentException(report + " is not the report of a run at a " + budget + ": "
						+ (lines.isEmpty() ? "it is empty" : lines.get(0)));
			}
			Map<Integer, String> restores = new TreeMap<>();
			for (String line : lines) {
				Matcher restore = RESTORES.matcher(line);
				if (restore.matches()) {
					restores.put((int) number(restore.group(1)), line);
				}
			}
			List<Row> rows = new ArrayList<>();
			for (String line : lines) {
				if (line.startsWith("| ") && !line.startsWith("| keys") && !line.startsWith("| ---")) {
					String[] cells = line.split("\\|");
					int keys = (int) number(cells[1]);
					rows.add(new Row(keys, line, restores.getOrDefault(keys, ""),
							new CostCurve.Rates(keys, number(cells[4]), number(cells[5]))));
				}
			}
			return rows;
		}

		private static double number(String cell) {
			return Double.parseDouble(cell.replace("claims/s", "").replace(",", "").strip());
		}

	}

	/**
	 * How long until an instance served every key, what each store restored meanwhile, and what its tasks then read
	 * into their key filters.
	 */
	record Restore(long millis, Map<String, long[]> restoredByStore, Map<String, long[]> filteredByStore) {

		/** From the lines an instance logged while it got ready. */
		static Restore of(long millis, String log) {
			return new Restore(millis, StateFigures.restoredByStore(log), StateFigures.filteredByStore(log));
		}

		/** Records restored and the slowest partition's restore time, by store; then the key filters' pass. */
		String describe() {
			StringBuilder text = new StringBuilder();
			this.restoredByStore.forEach((store, totals) -> text.append(String.format(Locale.ROOT,
					"%s%s %,d records in %.1f s", text.isEmpty() ? "" : "; ", store, totals[0], totals[1] / 1000.0)));
			if (text.isEmpty()) {
				text.append("nothing");
			}
			this.filteredByStore.forEach((store, totals) -> text.append(String.format(Locale.ROOT,
					"; %s's key filters %,d keys, the tasks' passes %.2f s in all", store, totals[0], totals[1] / 1000.0)));
			return text.toString();
		}

	}

	@Test
	void costCurve() throws Exception {
		Path work = BenchInstances.workDirectory("scale-");
		StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
				"One instance each, %d partitions, exactly_once_v2, -Xmx%dm, ValueGuard's RocksDB budget %d MiB, its "
						+ "other settings the defaults; claims twice the keys, values half the keys%n%n",
				PARTITIONS, HEAP_MIB, BLOCK_CACHE_MIB));
		List<Row> rows = new ArrayList<>();
		if (EARLIER_REPORT != null) {
			Row.earlier(Path.of(EARLIER_REPORT))
				.stream()
				.filter((row) -> !KEYSPACES.contains(row.keys()))
				.forEach(rows::add);
			report.append(String.format(Locale.ROOT, "Rows for %s keys from %s%n%n",
					rows.stream().map((row) -> String.format(Locale.ROOT, "%,d", row.keys())).toList(), EARLIER_REPORT));
		}
		try (BrokerProcess broker = new BrokerProcess(work).start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			// a fresh broker JVM is still compiling its hot paths: warm it up with one small run of each, not reported
			Workload warmUp = new Workload("bench.warm-up", 100_000, 50_000, 25_000, PARTITIONS, "exactly_once_v2");
			warmUp.preload(admin, broker.bootstrapServers(), null);
			Runs.baseline(broker, admin, work, warmUp, Setting.DEFAULTS);
			Runs.valueGuard(broker, admin, work, warmUp, settings(), null);
			for (int keys : KEYSPACES) {
				Workload workload = new Workload("bench.claims-" + keys, keys * 2, keys, keys / 2, PARTITIONS,
						"exactly_once_v2");
				long preload = workload.preload(admin, broker.bootstrapServers(), null);
				System.out.printf(Locale.ROOT, "Preloaded %,d claims of %,d keys in %.1f s%n", workload.claims(), keys,
						preload / 1000.0);
				Run baseline = Runs.baseline(broker, admin, work, workload, Setting.DEFAULTS);
				Point[] point = new Point[1];
				IndexFilterWatch[] watch = new IndexFilterWatch[1];
				Runs.valueGuard(broker, admin, work, workload, settings(),
						(instance) -> watch[0] = IndexFilterWatch.start(instance,
								work.resolve("index-filter-" + workload.keys() + ".csv"), WATCH_EVERY),
						(instance, prefix, arguments, run) -> point[0] = afterwards(broker, work, workload, baseline,
								instance, prefix, arguments, run, watch[0].summary()));
				rows.add(Row.of(point[0]));
				rows.sort(Comparator.comparingInt(Row::keys));
				System.out.println(row(point[0]));
				// after every point, so that a run stopped in its largest keyspace keeps the curve so far
				Files.writeString(work.resolve("report.md"), table(report, rows) + "\n" + plot(rows, work) + "\n");
			}
		}
		finally {
			BenchInstances.dropData(work);
		}
		System.out.println(Files.readString(work.resolve("report.md")));
	}

	private static String plot(List<Row> rows, Path work) throws IOException {
		try {
			Path png = work.resolve("cost-curve.png");
			CostCurve.write(rows.stream().map(Row::rates).toList(), png);
			return "Plot: " + png;
		}
		catch (java.awt.AWTError | RuntimeException ex) {
			// drawing text needs fonts (fontconfig): the figures stand without the plot
			return "No plot: " + ex;
		}
	}

	private static Setting settings() {
		return new Setting("defaults", Map.of(), Map.of(),
				List.of("--valueguard.rocksdb.block-cache-size=" + BLOCK_CACHE_MIB + "MB"));
	}

	private static Point afterwards(BrokerProcess broker, Path work, Workload workload, Run baseline,
			InstanceProcess instance, String prefix, List<String> arguments, Run run, String indexAndFilters)
			throws Exception {
		long atRest = 0;
		for (int i = 0; i < 20; i++) {
			atRest = Math.max(atRest, CatchUp.residentMib(instance.pid()));
			Thread.sleep(500);
		}
		// the changelogs read as tables: RocksDB's estimate of a store's entries counts overwritten ones too
		Map<String, Long> entries = new TreeMap<>();
		entries.put("bindings", (long) Table.read(broker.bootstrapServers(), prefix + "-keys-bindings-changelog")
			.bindings()
			.size());
		entries.put("owners", (long) Table.read(broker.bootstrapServers(), prefix + "-values-owners-changelog")
			.bindings()
			.size());
		instance.stop();
		Map<String, Long> disk = StateFigures.bytesOnDisk(instance.stateDir());
		instance.wipeState();
		long readyMillis = StateFigures.restartUntilReady(instance, Duration.ofMinutes(30));
		Restore wiped = Restore.of(readyMillis, StateFigures.sinceLastStart(instance));
		try (InstanceProcess standby = new InstanceProcess(prefix + "-standby", work, broker.bootstrapServers(),
				arguments)
			.jvmOptions(BenchInstances.valueGuardJvmOptions(work, prefix + "-standby").toArray(String[]::new))
			.environment(BenchInstances.EXTRA_ENVIRONMENT)) {
			List<String> partitions = partitions(instance);
			long started = System.nanoTime();
			standby.start();
			// the second instance holds each task as active or standby, whichever the assignor gives it
			awaitStores(standby, partitions, null, Duration.ofMinutes(30));
			long standbysMillis = (System.nanoTime() - started) / 1_000_000;
			int logLength = standby.log().length();
			long stopped = System.nanoTime();
			instance.stop();
			awaitStores(standby, partitions, "active", Duration.ofMinutes(10));
			Restore takeover = Restore.of((System.nanoTime() - stopped) / 1_000_000,
					standby.log().substring(logLength));
			standby.stop();
			return new Point(workload, baseline, run, atRest, entries, disk, wiped, standbysMillis, takeover,
					indexAndFilters);
		}
	}

	/**
	 * The store partitions {@code instance} holds, as {@code store-partition}, from its report, once it reports any
	 * (its lag readings refresh every second).
	 */
	private static List<String> partitions(InstanceProcess instance)
			throws InterruptedException {
		long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
		List<String> partitions = new ArrayList<>();
		while (partitions.isEmpty() && System.nanoTime() < deadline) {
			for (JsonNode store : report(instance).get("stores")) {
				partitions.add(store.get("store").asString() + "-" + store.get("partition").asInt());
			}
			Thread.sleep(100);
		}
		if (partitions.isEmpty()) {
			throw new IllegalStateException(instance.name() + " reports no store partitions, see " + instance.logFile());
		}
		return partitions;
	}

	/**
	 * Waits until {@code instance} holds exactly {@code partitions}, each in {@code role} (any when null) and caught
	 * up, with both stages RUNNING (its lag readings refresh every second, so this sees it up to a second late).
	 */
	private static void awaitStores(InstanceProcess instance, List<String> partitions, @Nullable String role,
			Duration within)
			throws InterruptedException {
		long deadline = System.nanoTime() + within.toNanos();
		while (System.nanoTime() < deadline) {
			if (!instance.alive()) {
				throw new IllegalStateException(instance.name() + " stopped, see " + instance.logFile());
			}
			try {
				JsonNode report = report(instance);
				List<String> held = new ArrayList<>();
				boolean caughtUp = true;
				for (JsonNode store : report.get("stores")) {
					held.add(store.get("store").asString() + "-" + store.get("partition").asInt());
					caughtUp &= (role == null || store.get("role").asString().equals(role))
							&& store.get("offsetLag").asLong() <= CAUGHT_UP;
				}
				boolean running = true;
				for (JsonNode client : report.get("streams")) {
					running &= client.get("state").asString().equals("RUNNING");
				}
				if (caughtUp && running && held.size() == partitions.size() && held.containsAll(partitions)) {
					return;
				}
			}
			catch (RuntimeException ex) {
				// not answering yet
			}
			Thread.sleep(100);
		}
		throw new IllegalStateException(instance.name() + " did not hold " + partitions + " as "
				+ ((role != null) ? role : "active or standby") + " within " + within + ", see " + instance.logFile());
	}

	/** {@code instance}'s own report, from its {@code /api/instances}. */
	private static JsonNode report(InstanceProcess instance) {
		var reply = instance.api().get("/api/instances");
		if (reply.status() != 200) {
			throw new IllegalStateException("/api/instances answered " + reply.status());
		}
		for (JsonNode report : reply.json()) {
			if (report.get("host").asString().endsWith(":" + instance.port())) {
				return report;
			}
		}
		throw new IllegalStateException(instance.name() + " is not in " + reply.body());
	}

	private static String table(StringBuilder header, List<Row> rows) {
		StringBuilder table = new StringBuilder(header).append("| keys | values | claims | plain table | ValueGuard | "
				+ "ratio | ValueGuard's CPU ms per 1,000 claims, application + broker | held by two keys | resident while "
				+ "claiming / at rest / bound | entries: bindings, owners | on disk per million entries: bindings, owners | ready after a wiped "
				+ "restart | standbys caught up after joining | standby's takeover after a stop |\n"
				+ "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
		rows.forEach((row) -> table.append(row.line()).append('\n'));
		table.append('\n');
		rows.stream().filter((row) -> !row.restores().isEmpty()).forEach((row) -> table.append(row.restores()).append('\n'));
		return table.toString();
	}

	private static String row(Point point) {
		Workload workload = point.workload();
		return String.format(Locale.ROOT,
				"| %,d | %,d | %,d | %,.0f claims/s | %,.0f claims/s | %.2f | %s | %,d | %,d / %,d / %,d MiB | %s, %s | "
						+ "%.1f, %.1f MiB | %.1f s | %.1f s | %.1f s |",
				workload.keys(), workload.values(), workload.claims(), point.baseline().claimsPerSecond(),
				point.valueGuard().claimsPerSecond(), point.ratio(), point.valueGuard().cpu(),
				point.valueGuard().table().sharedValues(), point.valueGuard().peakResidentMib(),
				point.residentAtRestMib(), point.residentBoundMib(), point.entriesOf("bindings"),
				point.entriesOf("owners"), point.diskPerMillion("bindings"), point.diskPerMillion("owners"), point.wiped().millis() / 1000.0,
				point.standbysMillis() / 1000.0, point.takeover().millis() / 1000.0);
	}

}
