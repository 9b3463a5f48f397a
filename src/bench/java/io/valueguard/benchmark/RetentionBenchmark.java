package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.valueguard.support.BrokerMain;
import io.valueguard.support.BrokerProcess;
import io.valueguard.support.GcLog;
import io.valueguard.support.InstanceProcess;
import io.valueguard.support.Scrape;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * Churn with and without retention, side by side in one run: keys and values that come, are released and never come
 * back, as a sign-up service sees accounts over the years. Each key claims one value, then another (releasing the
 * first), then sends a tombstone, each step a thousand keys after the one before, so that few entries hold anything at
 * any time; record {@code i} is stamped {@code i} milliseconds after the first. One instance catches up with the
 * preloaded topic without retention, then a fresh one with {@code valueguard.retention}. For each: claims per second,
 * the entries its stores hold (sampled while it runs and at the end), what it refused, the changelogs' size on the
 * broker after compaction had a minute, the CPU the instance spent in that idle minute and in a minute of a trickle of
 * claims after it (and the entries its sweep read then), the time to ready after a restart with the state directory
 * wiped, and what its collector did until it caught up (its GC log, beside the report). Both run with small changelog
 * segments, so that the broker compacts within the run. With {@code -Dvalueguard.bench.rounds=N} the pair runs N times,
 * in turn first and second, each instance fresh, and the report gives each round's ratio and their median; the
 * changelogs and the wiped restart are measured in the first round only. Not part of {@code ./mvnw verify}: run
 * {@code scripts/benchmark.sh retention} (parameters there).
 */
class RetentionBenchmark {

	private static final int CLAIMS = Integer.getInteger("valueguard.bench.claims", 5_000_000);

	private static final String RETENTION = System.getProperty("valueguard.bench.retention", "1000s");

	private static final int PARTITIONS = Integer.getInteger("valueguard.bench.partitions", 6);

	/**
	 * Rounds of the pair: a single ratio swung from 0.80 to 1.28 between runs of the same build at one partition
	 * (docs/benchmarks.md).
	 */
	private static final int ROUNDS = Integer.getInteger("valueguard.bench.rounds", 1);

	/** How long the first round's instances sit idle after catching up, for the log cleaner; their CPU is measured. */
	private static final Duration IDLE = Duration.ofSeconds(60);

	/**
	 * Claims a second of the trickle after the idle minute: fresh keys, stamped on from the newest record on the
	 * topic at the clock's pace, so that the stream time moves as a live service's does.
	 */
	private static final int TRICKLE = 20;

	/** The newest timestamp on the topic: the churn's last, then each trickle's. */
	private static final AtomicLong newest = new AtomicLong();

	/** How many keys later a key's second claim, and its tombstone twice that, come. */
	private static final int STEP = 1_000;

	@Test
	void churnWithAndWithoutRetention() throws Exception {
		Path work = BenchInstances.workDirectory("retention-");
		// the broker's own default key map for its log cleaner (128 MiB), not the tests' 2 MiB: the changelogs' size
		// after compaction is among what this benchmark measures
		try (BrokerProcess broker = new BrokerProcess(work)
			.jvmOptions("-D" + BrokerMain.DEDUPE_BUFFER_PROPERTY + "=" + 128 * 1024 * 1024)
			.start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			String topic = "bench.churn";
			admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
			long records = preload(broker.bootstrapServers(), topic);
			StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
					"Churn: %,d claims of %,d keys (each claims two values, then lets go), %,d records, %d partitions;"
							+ " retention %s%n%n| run | claims/s | ratio | bindings entries (max while running, end) |"
							+ " owners entries (max, end) | refused | changelog MiB (bindings, owners) | ready after "
							+ "a wiped restart |%n| --- | --- | --- | --- | --- | --- | --- | --- |%n",
					CLAIMS, CLAIMS / 2, records, PARTITIONS, RETENTION));
			List<String> collected = new ArrayList<>();
			List<String> spent = new ArrayList<>();
			List<String> sweeps = new ArrayList<>();
			List<Double> ratios = new ArrayList<>();
			for (int round = 1; round <= ROUNDS; round++) {
				// in turn first and second, so that the machine's drift over the run falls on both alike
				String[] order = (round % 2 == 1) ? new String[] { null, RETENTION } : new String[] { RETENTION, null };
				Map<String, Run> runs = new LinkedHashMap<>();
				for (String retention : order) {
					runs.put(retention, run(admin, broker, topic, work, retention, round));
				}
				double baseline = runs.get(null).rate();
				for (String retention : new String[] { null, RETENTION }) {
					Run run = runs.get(retention);
					String name = ((retention != null) ? "retention " + retention : "no retention")
							+ ((ROUNDS > 1) ? ", round " + round : "");
					report.append(String.format(Locale.ROOT,
							"| %s | %,.0f | %.2f | %,d, %,d | %,d, %,d | %,d | %s | %s |%n", name, run.rate(),
							run.rate() / baseline, run.maxBindings, run.endBindings, run.maxOwners, run.endOwners,
							run.refused, run.changelogs(), run.ready()));
					collected.add(name + ": " + run.gc.summary());
					spent.add(name + ": " + run.cpu.summary());
					if (retention != null) {
						sweeps.add(name + ": bindings " + run.bindingsSweep.summary() + "; owners "
								+ run.ownersSweep.summary());
					}
				}
				ratios.add(runs.get(RETENTION).rate() / baseline);
			}
			if (ROUNDS > 1) {
				report.append(String.format(Locale.ROOT,
						"%nRatio with retention to without, median of %d rounds: %.2f (%s)%n", ROUNDS,
						Medians.of(ratios), ratios.stream()
							.map((ratio) -> String.format(Locale.ROOT, "%.2f", ratio))
							.collect(Collectors.joining(", "))));
			}
			report.append(String.format(Locale.ROOT, "%nThe sweep until caught up (slices of each store's tasks, each "
					+ "holding up its task's records while it runs): %s%n", String.join("; ", sweeps)));
			report.append(String.format(Locale.ROOT, "%nCPU while timed, from running to caught up: %s%n",
					String.join("; ", spent)));
			report.append(String.format(Locale.ROOT, "%nGC from start-up until caught up: %s%n",
					String.join("; ", collected)));
			System.out.println(report);
			Files.writeString(work.resolve("report.md"), report);
		}
		finally {
			BenchInstances.dropData(work);
		}
	}

	/** Writes the churn; returns how many records. */
	private static long preload(String bootstrapServers, String topic) {
		AtomicLong failed = new AtomicLong();
		int keys = CLAIMS / 2;
		long records = 0;
		// in the past, but within the topic's seven days of time-based retention, and the last not in the future
		long base = System.currentTimeMillis() - Duration.ofHours(1).toMillis() - 2L * CLAIMS;
		try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.LINGER_MS_CONFIG, 20,
				ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024), new ByteArraySerializer(), new ByteArraySerializer())) {
			for (int step = 0; step < keys + 2 * STEP; step++) {
				if (step < keys) {
					send(producer, topic, base + records++, "account-" + step, "first-" + step, failed);
				}
				if (step >= STEP && step - STEP < keys) {
					send(producer, topic, base + records++, "account-" + (step - STEP), "second-" + (step - STEP),
							failed);
				}
				if (step >= 2 * STEP && step - 2 * STEP < keys) {
					send(producer, topic, base + records++, "account-" + (step - 2 * STEP), null, failed);
				}
			}
		}
		newest.set(base + records - 1);
		if (failed.get() > 0) {
			throw new IllegalStateException(failed.get() + " of " + records + " records were not written");
		}
		return records;
	}

	private static void send(KafkaProducer<byte[], byte[]> producer, String topic, long timestamp, String key,
			String value, AtomicLong failed) {
		producer.send(new ProducerRecord<>(topic, null, timestamp, utf8(key),
				(value != null) ? utf8(value + "@example.com") : null), (metadata, exception) -> {
					if (exception != null) {
						failed.incrementAndGet();
					}
				});
	}

	/**
	 * One instance's run; the changelogs' size and the time to ready after a wiped restart are NaN and -1 where not
	 * measured (rounds after the first).
	 */
	private record Run(long millis, long maxBindings, long endBindings, long maxOwners, long endOwners, long refused,
			double bindingsChangelogMib, double ownersChangelogMib, long readyMillis, GcLog gc, SweepFigures bindingsSweep,
			SweepFigures ownersSweep, Cpu cpu) {

		double rate() {
			return CLAIMS / (this.millis / 1000.0);
		}

		String changelogs() {
			return Double.isNaN(this.bindingsChangelogMib) ? "-"
					: String.format(Locale.ROOT, "%.1f, %.1f", this.bindingsChangelogMib, this.ownersChangelogMib);
		}

		String ready() {
			return (this.readyMillis < 0) ? "-" : String.format(Locale.ROOT, "%.1f s", this.readyMillis / 1000.0);
		}

	}

	/**
	 * The CPU the instance and the broker spent while timed, from the instance running to caught up, and where the
	 * instance's went: what a run with retention spends beyond one without, and on which threads.
	 */
	private record Cpu(double instanceSeconds, double brokerSeconds, List<CatchUp.ThreadLoad> threads,
			double idleCores, double trickleCores, double trickleReads) {

		Cpu(double instanceSeconds, double brokerSeconds, List<CatchUp.ThreadLoad> threads) {
			this(instanceSeconds, brokerSeconds, threads, Double.NaN, Double.NaN, Double.NaN);
		}

		/**
		 * The same, with the cores the instance used, on average, in the minute after caught up, and in the minute of
		 * the trickle after it, and the entries its sweep read a second then.
		 */
		Cpu afterwards(double idleCores, double trickleCores, double trickleReads) {
			return new Cpu(this.instanceSeconds, this.brokerSeconds, this.threads, idleCores, trickleCores,
					trickleReads);
		}

		String summary() {
			String afterwards = Double.isNaN(this.idleCores) ? ""
					: String.format(Locale.ROOT, "; then idle for a minute, %.3f of a core; then a trickle of %d "
							+ "claims a second for a minute, %.3f of a core, the sweep reading %,.0f entries a second",
							this.idleCores, TRICKLE, this.trickleCores, this.trickleReads);
			return String.format(Locale.ROOT, "instance %.1f s, broker %.1f s (%.1f and %.1f ms per 1,000 claims); "
					+ "the instance's threads, share of the run: %s%s", this.instanceSeconds, this.brokerSeconds,
					this.instanceSeconds * 1e6 / CLAIMS, this.brokerSeconds * 1e6 / CLAIMS,
					this.threads.stream().limit(6).map(CatchUp.ThreadLoad::toString).collect(Collectors.joining(", ")),
					afterwards);
		}

	}

	/**
	 * One store's sweep from the instance's metrics: slices, entries read, seconds spent, the longest slice seen and the
	 * widest share of the retention a pass spanned (Micrometer's max covers the last minutes, so both are sampled while
	 * the instance runs).
	 */
	private record SweepFigures(double slices, double read, double seconds, double maxSeconds, long maxAtSecond,
			double maxSpan) {

		static SweepFigures of(Scrape scrape, String store, double maxSeconds, long maxAtSecond, double maxSpan) {
			String tag = "store=\"" + store + "\"";
			return new SweepFigures(scrape.sum("valueguard_sweep_slices_seconds_count", tag).orElse(0),
					scrape.sum("valueguard_sweep_entries_read_total", tag).orElse(0),
					scrape.sum("valueguard_sweep_slices_seconds_sum", tag).orElse(0), maxSeconds, maxAtSecond, maxSpan);
		}

		/** The longest slice of late, in seconds. */
		static double max(Scrape scrape, String store) {
			return scrape.max("valueguard_sweep_slices_seconds_max", "store=\"" + store + "\"").orElse(0);
		}

		/** The widest pass of late, ended or not, as a share of the retention. */
		static double span(Scrape scrape, String store) {
			return scrape.max("valueguard_sweep_pass_span_ratio_max", "store=\"" + store + "\"").orElse(0);
		}

		String summary() {
			if (this.slices == 0) {
				return "no slice";
			}
			return String.format(Locale.ROOT, "%,.0f slices, %,.0f entries each, %.1f ms each (%.1f µs an entry), "
					+ "longest %.1f ms (seen %d s after the start), %.1f s in all; passes spanned up to %.2f of the "
					+ "retention", this.slices, this.read / this.slices, this.seconds * 1000 / this.slices,
					(this.read > 0) ? this.seconds * 1e6 / this.read : 0, this.maxSeconds * 1000, this.maxAtSecond,
					this.seconds, this.maxSpan);
		}

	}

	/** A fresh instance, with its own application id in each round; the first round's measures its changelogs too. */
	private static Run run(Admin admin, BrokerProcess broker, String topic, Path work, String retention, int round)
			throws Exception {
		String bootstrapServers = broker.bootstrapServers();
		String prefix = ((retention != null) ? "bench-vg-retention" : "bench-vg-keep")
				+ ((round > 1) ? "-round-" + round : "");
		List<String> more = new ArrayList<>(List.of(
				// small changelog segments, so that the broker compacts them within the run (both runs alike)
				"--spring.cloud.stream.kafka.streams.binder.configuration.topic.segment.bytes=8388608",
				"--spring.cloud.stream.kafka.streams.binder.configuration.topic.min.cleanable.dirty.ratio=0.1",
				"--spring.cloud.stream.kafka.streams.binder.configuration.topic.delete.retention.ms=1000",
				"--valueguard.query.lag-refresh-interval=2s"));
		if (retention != null) {
			more.add("--valueguard.retention=" + retention);
		}
		try (InstanceProcess instance = new InstanceProcess(prefix, work, bootstrapServers,
				BenchInstances.arguments(prefix, topic, PARTITIONS, more.toArray(String[]::new)))
			.jvmOptions(BenchInstances.valueGuardJvmOptions(work, prefix).toArray(String[]::new))
			.environment(BenchInstances.EXTRA_ENVIRONMENT)) {
			instance.start();
			Map<String, Set<String>> inputs = new LinkedHashMap<>();
			inputs.put(prefix + "-keys", Set.of(topic, prefix + "-eviction-feedback"));
			inputs.put(prefix + "-values", Set.of(prefix + "-owner-commands"));
			long[] max = new long[2];
			// the longest slice of each store, in seconds, sampled as the entries are, and when it was seen; every
			// sample in sweep-<prefix>.csv: seconds since the start, then each store's longest slice of late
			double[] longest = new double[2];
			long[] longestAt = new long[2];
			// and the widest share of the retention a pass of each store spanned
			double[] widest = new double[2];
			long startedAt = System.nanoTime();
			StringBuilder samples = new StringBuilder(
					"seconds,bindings_longest_ms,owners_longest_ms,bindings_pass_span,owners_pass_span\n");
			ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
			sampler.scheduleWithFixedDelay(() -> {
				try {
					Scrape scrape = new Scrape(instance.api().get("/actuator/prometheus").body());
					max[0] = Math.max(max[0], entries(scrape, "bindings"));
					max[1] = Math.max(max[1], entries(scrape, "owners"));
					long second = (System.nanoTime() - startedAt) / 1_000_000_000;
					double[] now = { SweepFigures.max(scrape, "bindings"), SweepFigures.max(scrape, "owners") };
					double[] span = { SweepFigures.span(scrape, "bindings"), SweepFigures.span(scrape, "owners") };
					for (int store = 0; store < 2; store++) {
						if (now[store] > longest[store]) {
							longest[store] = now[store];
							longestAt[store] = second;
						}
						widest[store] = Math.max(widest[store], span[store]);
					}
					samples.append(String.format(Locale.ROOT, "%d,%.1f,%.1f,%.3f,%.3f%n", second, now[0] * 1000,
							now[1] * 1000, span[0], span[1]));
				}
				catch (RuntimeException ex) {
					// not answering yet
				}
			}, 5, 5, TimeUnit.SECONDS);
			CatchUp catchUp = new CatchUp(admin, PARTITIONS, inputs).watching(instance.pid(), broker.pid());
			long millis;
			try {
				millis = catchUp.time(() -> BenchInstances.running(instance, prefix), null);
			}
			finally {
				sampler.shutdownNow();
				sampler.awaitTermination(10, TimeUnit.SECONDS);
			}
			// named while the instance runs
			Cpu cpu = new Cpu(catchUp.cpuSeconds(instance.pid()), catchUp.cpuSeconds(broker.pid()),
					catchUp.threadLoads(instance.pid()));
			// the sweep's figures until caught up, as the GC's below
			Scrape caughtUp = new Scrape(instance.api().get("/actuator/prometheus").body());
			SweepFigures bindingsSweep = SweepFigures.of(caughtUp, "bindings", longest[0], longestAt[0], widest[0]);
			SweepFigures ownersSweep = SweepFigures.of(caughtUp, "owners", longest[1], longestAt[1], widest[1]);
			Files.writeString(work.resolve("sweep-" + prefix + ".csv"), samples);
			// read before the restart below starts the log again
			GcLog gc = GcLog.read(BenchInstances.gcLogFile(work, prefix));
			// a sweep pass and a metrics refresh after the last record
			Thread.sleep(Duration.ofSeconds(15).toMillis());
			Scrape scrape = new Scrape(instance.api().get("/actuator/prometheus").body());
			long endBindings = entries(scrape, "bindings");
			long endOwners = entries(scrape, "owners");
			long refused = (long) (scrape.sum("valueguard_dlq_records_total", "reason=\"claim_too_old\"").orElse(0)
					+ scrape.sum("valueguard_evictions_total", "reason=\"too_old\"").orElse(0));
			// the changelogs and the wiped restart: the first round's instances only
			double bindingsMib = Double.NaN;
			double ownersMib = Double.NaN;
			long readyMillis = -1;
			if (round == 1) {
				// the log cleaner's turn: it looks every 15 s by default. The instance has nothing to do meanwhile: what
				// it spends is its idle cost, the sweep's among it
				double idleFrom = CatchUp.cpuSecondsSoFar(instance.pid());
				Thread.sleep(IDLE.toMillis());
				double idleTo = CatchUp.cpuSecondsSoFar(instance.pid());
				double readFrom = sweepReads(instance);
				trickle(bootstrapServers, topic);
				cpu = cpu.afterwards((idleTo - idleFrom) / IDLE.toSeconds(),
						(CatchUp.cpuSecondsSoFar(instance.pid()) - idleTo) / IDLE.toSeconds(),
						(sweepReads(instance) - readFrom) / IDLE.toSeconds());
				bindingsMib = mib(admin, prefix + "-keys-bindings-changelog");
				ownersMib = mib(admin, prefix + "-values-owners-changelog");
				instance.stop();
				// the restart records to the same file: keep this run's recording (-Dvalueguard.bench.jfr=true) apart
				Path recording = BenchInstances.recordingFile(work, prefix);
				if (Files.exists(recording) && Files.size(recording) > 0) {
					Files.move(recording, BenchInstances.recordingFile(work, prefix + "-until-restart"),
							StandardCopyOption.REPLACE_EXISTING);
				}
				instance.wipeState();
				long restarted = System.nanoTime();
				instance.start();
				long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
				while (!instance.ready()) {
					if (System.nanoTime() > deadline) {
						throw new IllegalStateException(
								"not ready 15 minutes after the restart, see " + instance.logFile());
					}
					Thread.sleep(100);
				}
				readyMillis = (System.nanoTime() - restarted) / 1_000_000;
			}
			return new Run(millis, Math.max(max[0], endBindings), endBindings, Math.max(max[1], endOwners), endOwners,
					refused, bindingsMib, ownersMib, readyMillis, gc, bindingsSweep, ownersSweep, cpu);
		}
	}

	/**
	 * {@link #TRICKLE} claims a second of fresh keys for {@link #IDLE}, stamped from the newest record on the topic on
	 * at the clock's pace: an instance that read the last trickle starts this one at its own stream time.
	 */
	private static void trickle(String bootstrapServers, String topic) throws InterruptedException {
		AtomicLong failed = new AtomicLong();
		long from = newest.get();
		long started = System.nanoTime();
		int sent = 0;
		try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
				Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers), new ByteArraySerializer(),
				new ByteArraySerializer())) {
			for (long elapsed = 0; elapsed < IDLE.toNanos(); elapsed = System.nanoTime() - started) {
				long timestamp = from + 1 + elapsed / 1_000_000;
				String key = "trickle-" + timestamp + "-" + sent++;
				send(producer, topic, timestamp, key, key, failed);
				newest.set(timestamp);
				Thread.sleep(1000 / TRICKLE);
			}
		}
		if (failed.get() > 0) {
			throw new IllegalStateException(failed.get() + " of the trickle's " + sent + " records were not written");
		}
	}

	/** The entries the instance's sweeps have read so far, both stores. */
	private static double sweepReads(InstanceProcess instance) {
		return new Scrape(instance.api().get("/actuator/prometheus").body())
			.sum("valueguard_sweep_entries_read_total").orElse(0);
	}

	private static long entries(Scrape scrape, String store) {
		return (long) scrape.sum("valueguard_store_entries", "store=\"" + store + "\"").orElse(0);
	}

	/** The topic's size on the broker's disk, all partitions, in MiB. */
	private static double mib(Admin admin, String topic) throws Exception {
		long bytes = 0;
		for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(List.of(1)).allDescriptions().get().values()) {
			for (LogDirDescription dir : dirs.values()) {
				for (Map.Entry<TopicPartition, ReplicaInfo> replica : dir.replicaInfos().entrySet()) {
					if (replica.getKey().topic().equals(topic)) {
						bytes += replica.getValue().size();
					}
				}
			}
		}
		return bytes / (1024.0 * 1024.0);
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
