package io.valueguard.faults;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import io.valueguard.support.InstanceProcess;
import org.apache.kafka.common.utils.Utils;
import org.awaitility.core.ConditionTimeoutException;
import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/** Starting the instances of a fault test, and waiting for them. */
final class Instances {

	/**
	 * How long every instance has to become ready ({@code -Dvalueguard.faults.recovery}). Longer than a consumer waits
	 * for a JoinGroup answer that the broker lost in its restart, Kafka Streams' rebalance timeout
	 * ({@code max.poll.interval.ms}, 5 min) and 5 s, plus a restart (docs/reliability.md): that wait is the broker's,
	 * and the report's readiness column shows it.
	 */
	static final Duration RECOVERY = Duration.parse(System.getProperty("valueguard.faults.recovery", "PT6M"));

	/** How many times one wait may restart the broker for offsets no transaction will clear. */
	static final int REMEDIES = 3;

	/** How often the instances' logs are read for that diagnosis while waiting. */
	private static final Duration DIAGNOSES_APART = Duration.ofSeconds(10);

	private Instances() {
	}

	/**
	 * This JVM has no Spring Boot logging: keeps the test's own Kafka clients (the claim stream, the probes) from logging
	 * every metadata update.
	 */
	static void quietKafkaClients() {
		((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("org.apache.kafka"))
			.setLevel(ch.qos.logback.classic.Level.WARN);
	}

	/** Instances named {@code names}, not started, each with the same extra arguments. */
	static List<InstanceProcess> create(List<String> names, Path work, String bootstrapServers, List<String> arguments) {
		List<InstanceProcess> instances = new ArrayList<>();
		for (String name : names) {
			instances.add(new InstanceProcess(name, work, bootstrapServers, arguments));
		}
		return instances;
	}

	/** Starts the first, which creates the topics, then the others. */
	static void start(List<InstanceProcess> instances) {
		instances.get(0).start();
		awaitReady(instances.subList(0, 1));
		instances.subList(1, instances.size()).forEach(InstanceProcess::start);
		awaitReady(instances);
	}

	/**
	 * Waits until every instance is ready. If one is not within {@link #RECOVERY}, every instance gets its readiness
	 * answer and a thread dump written to its log, so that a failure under load can be told from a stuck thread
	 * afterwards, and the broker's view of their transactions and groups goes to {@code broker-view.txt} beside the
	 * logs.
	 */
	static void awaitReady(List<InstanceProcess> instances) {
		awaitReady(instances, null);
	}

	/**
	 * Waits as {@link #awaitReady(List)}, and applies the operator's remedy when an instance says that a stage waits
	 * for committed offsets no transaction will clear (Kafka's group coordinator serving a partial load after a broker
	 * restart, docs/reliability.md): {@code remedy} restarts the broker and returns what it did, for the report. At
	 * most {@link #REMEDIES} times a wait.
	 * @param remedy null: none, the wait fails as the stall does not heal by itself
	 */
	static void awaitReady(List<InstanceProcess> instances, @Nullable Function<String, String> remedy) {
		NeverClearedOffsets diagnoses = new NeverClearedOffsets(instances);
		long[] lookedAt = { System.nanoTime() };
		int[] applied = { 0 };
		try {
			await("every instance ready").atMost(RECOVERY).pollInterval(Duration.ofMillis(250)).until(() -> {
				for (InstanceProcess instance : instances) {
					if (!instance.alive()) {
						throw new IllegalStateException(instance.name() + " exited, see " + instance.logFile());
					}
				}
				if (instances.stream().allMatch(InstanceProcess::ready)) {
					return true;
				}
				if (remedy != null && applied[0] < REMEDIES
						&& System.nanoTime() - lookedAt[0] >= DIAGNOSES_APART.toNanos()) {
					lookedAt[0] = System.nanoTime();
					List<String> found = diagnoses.since(instances);
					if (!found.isEmpty()) {
						applied[0]++;
						System.out.println("Remedy: " + remedy.apply(found.get(0)));
					}
				}
				return false;
			});
		}
		catch (ConditionTimeoutException ex) {
			List<String> waiting = new ArrayList<>();
			for (InstanceProcess instance : instances) {
				boolean ready = instance.ready();
				// the ready ones too: a stall that holds up one instance can hold up the others' processing while
				// their readiness stays UP (2026-12-04, docs/reliability.md)
				instance.describeToLog((ready ? "ready, but another was not" : "not ready") + " after " + RECOVERY);
				if (!ready) {
					waiting.add(instance.name());
				}
			}
			Path brokerView = instances.get(0).logFile().resolveSibling("broker-view.txt");
			append(brokerView, BrokerView.describe(instances.get(0).bootstrapServers()));
			throw new AssertionError("Not ready within " + RECOVERY + ": " + String.join(", ", waiting)
					+ " (every instance's readiness and threads at the end of its log, beside " + instances.get(0).logFile()
					+ "; the broker's transactions and groups in " + brokerView + ")", ex);
		}
	}

	private static void append(Path file, String text) {
		try {
			Files.writeString(file, text, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** One name per partition (Kafka's default partitioner), so that probes cover every partition of both stages. */
	static List<String> onePerPartition(String prefix, int partitions) {
		List<String> names = new ArrayList<>();
		for (int partition = 0; partition < partitions; partition++) {
			for (int i = 0;; i++) {
				String name = prefix + i;
				if (Utils.toPositive(Utils.murmur2(name.getBytes(StandardCharsets.UTF_8))) % partitions == partition) {
					names.add(name);
					break;
				}
			}
		}
		return names;
	}

}
