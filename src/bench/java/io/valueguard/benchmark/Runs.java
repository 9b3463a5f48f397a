package io.valueguard.benchmark;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.LongStream;

import io.valueguard.support.ApiClient;
import io.valueguard.support.BrokerProcess;
import io.valueguard.support.ChildJvm;
import io.valueguard.support.GcLog;
import io.valueguard.support.InstanceProcess;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.StreamsConfig;
import org.jspecify.annotations.Nullable;

/**
 * The applications the throughput benchmarks time over a preloaded {@link Workload}, each in a fresh JVM with the same
 * heap against the broker in its own: the plain table a user would write without ValueGuard ({@link BaselineMain}),
 * the seed's design ({@link SeedDesignMain}) and ValueGuard, the packaged service. Time runs from the moment the
 * application (for ValueGuard its key stage) is RUNNING to the moment every consumer group of the application has
 * caught up: committed offsets at the last stable offsets, held for half a second so that no transaction is still
 * open.
 */
final class Runs {

	private static final String BINDER = "--spring.cloud.stream.kafka.streams.binder.configuration.";

	private Runs() {
	}

	/** What a benchmark watches while the ValueGuard instance it times takes the claims; closed once it caught up. */
	@FunctionalInterface
	interface During {

		AutoCloseable watch(InstanceProcess instance) throws Exception;

	}

	/** What a benchmark does with the ValueGuard instance it timed, before the instance stops. */
	@FunctionalInterface
	interface Afterwards {

		/**
		 * @param arguments the instance's arguments, for another instance of the same application
		 */
		void with(InstanceProcess instance, String prefix, List<String> arguments, Run run) throws Exception;

	}

	/** From RUNNING until the plain table, in a JVM of its own, has read every claim. */
	static Run baseline(BrokerProcess broker, Admin admin, Path work, Workload workload, Setting setting)
			throws Exception {
		String applicationId = "bench-baseline-" + UUID.randomUUID().toString().substring(0, 8);
		String output = applicationId + "-out";
		return standalone(broker, admin, work, workload, setting, new Standalone(BaselineMain.class, applicationId,
				List.of(output), List.of(workload.topic(), output), Set.of(workload.topic()), null));
	}

	/**
	 * From RUNNING until the seed's design, in a JVM of its own, has read every claim and every tombstone it wrote
	 * back; then its output topic read as a table.
	 */
	static Run seedDesign(BrokerProcess broker, Admin admin, Path work, Workload workload, Setting setting)
			throws Exception {
		String applicationId = "bench-seed-" + UUID.randomUUID().toString().substring(0, 8);
		String output = applicationId + "-out";
		String tombstones = applicationId + "-tombstones";
		String owners = applicationId + "-owners";
		return standalone(broker, admin, work, workload, setting, new Standalone(SeedDesignMain.class, applicationId,
				List.of(output, tombstones, owners), List.of(workload.topic(), output, tombstones, owners),
				Set.of(workload.topic(), tombstones), output));
	}

	/**
	 * From RUNNING until both stages, the packaged service, have read every claim, command and verdict; then its
	 * bindings topic read as a table, and {@code afterwards} given the instance before it stops.
	 */
	static Run valueGuard(BrokerProcess broker, Admin admin, Path work, Workload workload, Setting setting,
			@Nullable Afterwards afterwards) throws Exception {
		return valueGuard(broker, admin, work, workload, setting, null, afterwards);
	}

	/** As above, with {@code during} watching the instance while it takes the claims. */
	static Run valueGuard(BrokerProcess broker, Admin admin, Path work, Workload workload, Setting setting,
			@Nullable During during, @Nullable Afterwards afterwards) throws Exception {
		String bootstrapServers = broker.bootstrapServers();
		String prefix = "bench-vg-" + UUID.randomUUID().toString().substring(0, 8);
		List<String> arguments = BenchInstances.arguments(prefix, workload.topic(), workload.partitions(),
				BINDER + StreamsConfig.PROCESSING_GUARANTEE_CONFIG + "=" + workload.guarantee());
		setting.valueGuard().forEach((name, value) -> arguments.add(BINDER + name + "=" + value));
		arguments.addAll(setting.valueGuardArguments());
		arguments.addAll(BenchInstances.EXTRA_ARGUMENTS);
		if (setting.instances() > 1 && !workload.exactlyOnce()) {
			throw new IllegalArgumentException("Several instances are timed under exactly-once only");
		}
		List<InstanceProcess> instances = new ArrayList<>();
		try {
			// one application: the first instance is named for it, the others after it, each with its own state
			for (int i = 1; i <= setting.instances(); i++) {
				String name = (i == 1) ? prefix : prefix + "-" + i;
				List<String> jvmOptions = new ArrayList<>(BenchInstances.valueGuardJvmOptions(work, name));
				jvmOptions.addAll(setting.jvmOptions());
				Map<String, String> environment = new LinkedHashMap<>(BenchInstances.EXTRA_ENVIRONMENT);
				environment.putAll(setting.environment());
				InstanceProcess each = new InstanceProcess(name, work, bootstrapServers, arguments)
					.jvmOptions(jvmOptions.toArray(String[]::new))
					.environment(environment);
				if (setting.jar() != null) {
					each.jar(setting.jar());
				}
				instances.add(each);
			}
			InstanceProcess instance = instances.get(0);
			// all at once, so that they share the partitions from the first rebalance on
			instances.forEach(InstanceProcess::start);
			long[] pids = LongStream.concat(instances.stream().mapToLong(InstanceProcess::pid),
					LongStream.of(broker.pid())).toArray();
			Map<String, Set<String>> inputs = new LinkedHashMap<>();
			// claims its producer put on other partitions than their keys' reach them through one topic more; a
			// build before rerouting (-Dvalueguard.bench.compare-jar) has not got it
			inputs.put(prefix + "-keys", Workload.CRC32_PARTITIONER
					? Set.of(workload.topic(), prefix + "-eviction-feedback", prefix + "-rerouted-claims")
					: Set.of(workload.topic(), prefix + "-eviction-feedback"));
			inputs.put(prefix + "-values", Set.of(prefix + "-owner-commands"));
			CatchUp catchUp = new CatchUp(admin, workload.partitions(), inputs).watching(pids)
				.countingRequestsOf(broker.pid())
				.progressOf(prefix + "-keys", workload.topic(), workload.claims())
				.within(deadline(workload));
			if (!workload.exactlyOnce()) {
				// every claim, command and verdict processed: without transactions, end offsets count records
				catchUp.doneWhen(() -> processed(instance) == workload.claims()
						+ endOffsets(admin, workload, prefix + "-owner-commands")
						+ endOffsets(admin, workload, prefix + "-eviction-feedback"));
			}
			long millis;
			try (AutoCloseable watching = (during != null) ? during.watch(instance) : () -> {
			}) {
				millis = catchUp.time(() -> BenchInstances.running(instance, prefix), null);
			}
			double cpuSeconds = 0;
			long peakResidentMib = -1;
			for (InstanceProcess each : instances) {
				cpuSeconds += catchUp.cpuSeconds(each.pid());
				peakResidentMib = Math.max(peakResidentMib, catchUp.peakResidentMib(each.pid()));
			}
			Run run = new Run(prefix, workload.claims(), millis, cpuSeconds, catchUp.cpuSeconds(broker.pid()),
					offsetsWritten(admin, prefix), threadMetric(instance, "commit.total"),
					catchUp.threadLoads(instance.pid()), catchUp.threadLoads(broker.pid()),
					catchUp.lastThreeQuartersMillis(), catchUp.drainMillis(), peakResidentMib,
					Table.read(bootstrapServers, prefix + ".bindings"), catchUp.brokerRequests(),
					GcLog.read(BenchInstances.gcLogFile(work, prefix)));
			if (BenchInstances.PERF) {
				for (InstanceProcess each : instances) {
					CatchUp.writeThreadKinds(each.pid(), setting.name() + ", ValueGuard",
							work.resolve(each.pid() + ".threads"));
				}
			}
			if (afterwards != null) {
				afterwards.with(instance, prefix, arguments, run);
			}
			for (InstanceProcess each : instances) {
				if (each.alive()) {
					each.stop();
				}
			}
			return run;
		}
		finally {
			instances.forEach(InstanceProcess::close);
		}
	}

	/** Twenty minutes, or longer for a workload that takes longer at 5,000 claims/s. */
	private static Duration deadline(Workload workload) {
		return Duration.ofSeconds(Math.max(1_200, workload.claims() / 5_000));
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

	private static Run standalone(BrokerProcess broker, Admin admin, Path work, Workload workload, Setting setting,
			Standalone application) throws Exception {
		String bootstrapServers = broker.bootstrapServers();
		String applicationId = application.applicationId();
		admin.createTopics(application.topics()
			.stream()
			.map((topic) -> new NewTopic(topic, workload.partitions(), (short) 1))
			.toList()).all().get();
		Path log = work.resolve(applicationId + ".log");
		Path processed = work.resolve(applicationId + ".processed");
		List<String> command = new ArrayList<>(List.of(ChildJvm.java()));
		command.addAll(BenchInstances.jvmOptions(work, applicationId));
		command.add("-Dvalueguard.bench.processed-file=" + processed.toAbsolutePath());
		command.addAll(List.of("-cp", System.getProperty("java.class.path"), application.main().getName(),
				bootstrapServers, applicationId));
		command.addAll(application.arguments());
		command.add(work.resolve("state").toString());
		command.add(StreamsConfig.PROCESSING_GUARANTEE_CONFIG + "=" + workload.guarantee());
		setting.baseline().forEach((name, value) -> command.add(name + "=" + value));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
		try {
			CatchUp catchUp = new CatchUp(admin, workload.partitions(), Map.of(applicationId, application.inputs()))
				.watching(process.pid(), broker.pid())
				.countingRequestsOf(broker.pid())
				.progressOf(applicationId, workload.topic(), workload.claims())
				.within(deadline(workload));
			if (!workload.exactlyOnce()) {
				catchUp.doneWhen(() -> Files.exists(processed)
						&& Files.readString(processed).equals(Integer.toString(workload.claims())));
			}
			long millis = catchUp.time(() -> Files.exists(log) && Files.readString(log).contains("RUNNING"), process);
			if (BenchInstances.PERF) {
				CatchUp.writeThreadKinds(process.pid(), setting.name() + ", " + application.main().getSimpleName(),
						work.resolve(process.pid() + ".threads"));
			}
			return new Run(applicationId + "-", workload.claims(), millis, catchUp.cpuSeconds(process.pid()),
					catchUp.cpuSeconds(broker.pid()), offsetsWritten(admin, applicationId), -1,
					catchUp.threadLoads(process.pid()), catchUp.threadLoads(broker.pid()),
					catchUp.lastThreeQuartersMillis(), catchUp.drainMillis(), catchUp.peakResidentMib(process.pid()),
					(application.table() != null) ? Table.read(bootstrapServers, application.table()) : Table.EMPTY,
					catchUp.brokerRequests(), GcLog.read(BenchInstances.gcLogFile(work, applicationId)));
		}
		finally {
			process.destroy();
			process.waitFor();
		}
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

	private static long endOffsets(Admin admin, Workload workload, String topic) throws Exception {
		Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
		for (int partition = 0; partition < workload.partitions(); partition++) {
			ends.put(new TopicPartition(topic, partition), OffsetSpec.latest());
		}
		return admin.listOffsets(ends).all().get().values().stream().mapToLong((end) -> end.offset()).sum();
	}

}
