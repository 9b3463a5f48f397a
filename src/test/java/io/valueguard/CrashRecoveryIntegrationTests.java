package io.valueguard;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.support.ApiClient;
import io.valueguard.support.ChildJvm;
import io.valueguard.support.FirstWinsModel;
import io.valueguard.support.FreePorts;
import io.valueguard.support.HistoryGenerator;
import io.valueguard.support.InputRecord;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.ReferenceModel;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.condition.EmbeddedKafkaCondition;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static io.valueguard.support.TopologyHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A crash in the middle of transactions: the packaged application runs as a separate process, is killed with
 * SIGKILL while it works through a race of claims, and is started again on the same state directory. Exactly-once
 * processing must leave the same final state as if nothing had happened, and each eviction event exactly once. Under
 * first-wins, "as if nothing had happened" means the first-wins rule applied in the order the command partitions
 * carry the claims, which every replay must keep.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 4, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
class CrashRecoveryIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(120);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	@TempDir
	Path work;

	private final List<Process> processes = new ArrayList<>();

	@AfterEach
	void killAll() {
		this.processes.forEach(Process::destroyForcibly);
	}

	/** What runs: the default rule, and both rules with retention on. */
	enum Scenario {

		LATEST_WINS(ClaimPolicy.LATEST_WINS, false), FIRST_WINS_WITH_RETENTION(ClaimPolicy.FIRST_WINS, true),
		LATEST_WINS_WITH_RETENTION(ClaimPolicy.LATEST_WINS, true);

		private final ClaimPolicy policy;

		private final boolean retention;

		Scenario(ClaimPolicy policy, boolean retention) {
			this.policy = policy;
			this.retention = retention;
		}

	}

	/** Every build: the default rule, and first-wins with retention (the two rules' and retention's code paths). */
	@ParameterizedTest
	@EnumSource(value = Scenario.class, names = { "LATEST_WINS", "FIRST_WINS_WITH_RETENTION" })
	void shouldReachFinalStateExactlyOnceWhenKilledMidTransaction(Scenario scenario) throws Exception {
		killMidTransaction(scenario);
	}

	/** With the long suites ({@code scripts/fault-suite.sh}): latest-wins with retention. */
	@ParameterizedTest
	@EnumSource(value = Scenario.class, names = "LATEST_WINS_WITH_RETENTION")
	@Tag("long")
	void shouldReachFinalStateExactlyOnceWhenKilledMidTransactionWithRetention(Scenario scenario) throws Exception {
		killMidTransaction(scenario);
	}

	private void killMidTransaction(Scenario scenario) throws Exception {
		// a parameterized test gets no broker parameter: the class's broker, from the condition that started it
		EmbeddedKafkaBroker broker = EmbeddedKafkaCondition.getBroker();
		ClaimPolicy policy = scenario.policy;
		// each scenario its own topics on the shared broker
		String prefix = scenario.name().toLowerCase(Locale.ROOT).replace('_', '-');
		Topics topics = new Topics(prefix);
		long seed = System.nanoTime();
		Random random = new Random(seed);
		long now = System.currentTimeMillis();
		List<InputRecord> history = new ArrayList<>();
		if (scenario.retention) {
			// Two hours ago, with a retention of one hour: claims of the keys and values of today and of keys and
			// values never seen again, all released at the end. Today's claims then find them forgotten.
			List<InputRecord> old = new HistoryGenerator(random, 200, 25).history(800);
			old.addAll(new HistoryGenerator(random, 50, 10).history(400)
				.stream()
				.map((record) -> new InputRecord("old-" + record.key(),
						(record.value() != null) ? "old-" + record.value() : null, record.timestamp()))
				.toList());
			Set<String> keys = InputRecord.keysOf(old);
			keys.forEach((key) -> old.add(new InputRecord(key, null, 1_040)));
			old.forEach((record) -> history.add(new InputRecord(record.key(), record.value(),
					now - Duration.ofHours(2).toMillis() + record.timestamp() * 50)));
		}
		int todayFrom = history.size();
		new HistoryGenerator(random, 200, 25).history(3_000)
			.forEach((record) -> history.add(new InputRecord(record.key(), record.value(),
					now + record.timestamp() * 50)));
		int port = FreePorts.next();
		Process first = start(broker, port, topics, scenario, prefix + "-first.log");
		ApiClient api = new ApiClient(port);
		awaitReady(api, first);

		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			for (InputRecord record : history.subList(0, todayFrom)) {
				send(kafka, topics, record);
			}
			if (todayFrom > 0) {
				// the old claims all ruled on before today's: no claim is then too old for its stream time
				Set<String> oldValues = InputRecord.valuesOf(history.subList(0, todayFrom));
				await("old claims released").atMost(PATIENCE)
					.untilAsserted(() -> assertThat(api.owners(oldValues)).isEmpty());
			}
		}
		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			for (int i = todayFrom; i < history.size(); i++) {
				send(kafka, topics, history.get(i));
				if (first.isAlive() && i >= todayFrom + (history.size() - todayFrom) / 3 && i % 50 == 0
						&& kafka.hasOpenTransaction(topics.bindings())) {
					// mid-stream, while a transaction has written bindings and not committed: no shutdown hook
					first.destroyForcibly().waitFor();
				}
			}
			assertThat(first.isAlive()).as("the first instance was killed inside a transaction").isFalse();
		}
		Process second = start(broker, port, topics, scenario, prefix + "-second.log");
		awaitReady(api, second);

		Set<String> keys = InputRecord.keysOf(history);
		Set<String> values = InputRecord.valuesOf(history);
		String reproduce = scenario + ", seed " + seed + ", logs in " + this.work;
		await("final state after the crash (" + reproduce + ")").atMost(PATIENCE).untilAsserted(() -> {
			try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
				// first-wins: the committed order of the command partitions is the order every replay must keep
				Map<String, String> expected = (policy == ClaimPolicy.LATEST_WINS)
						? new ReferenceModel().apply(history).bindings()
						: new FirstWinsModel().history(history)
							.arbitrate(kafka.ownerCommands(topics.ownerCommands()))
							.bindings();
				assertThat(kafka.table(topics.bindings(), keys)).isEqualTo(expected);
				assertThat(api.owners(values)).isEqualTo(inverse(expected));
			}
		});

		// exactly once: a replayed transaction that had been half written would show as a second tombstone for a
		// key that was already unbound, or as more eviction events for a key than it has tombstones
		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			Map<String, List<String>> bindings = new HashMap<>();
			for (ConsumerRecord<byte[], byte[]> record : kafka.readAll(topics.bindings())) {
				bindings.computeIfAbsent(new String(record.key(), StandardCharsets.UTF_8), (key) -> new ArrayList<>())
					.add((record.value() != null) ? new String(record.value(), StandardCharsets.UTF_8) : null);
			}
			Map<String, Integer> evictions = new HashMap<>();
			Set<String> refusedClaims = new HashSet<>();
			for (ConsumerRecord<byte[], byte[]> record : kafka.readAll(topics.evictions())) {
				JsonNode event = JSON.readTree(record.value());
				evictions.merge(event.get("key").asString(), 1, Integer::sum);
				if (policy == ClaimPolicy.FIRST_WINS) {
					// first-wins stamps every claim command of a key apart: one refusal per claim, or it was replayed
					String claim = event.get("key").asString() + "@" + event.get("claimTimestamp").asLong();
					assertThat(event.get("reason").asString()).as(reproduce).isEqualTo("REFUSED");
					assertThat(refusedClaims.add(claim)).as("one refusal of %s (%s)", claim, reproduce).isTrue();
				}
			}
			assertThat(evictions).as("evictions happened (" + reproduce + ")").isNotEmpty();
			bindings.forEach((key, sequence) -> {
				String previous = "";
				int tombstones = 0;
				for (String value : sequence) {
					if (value == null) {
						assertThat(previous).as("tombstone of %s after %s (%s)", key, sequence, reproduce).isNotNull();
						tombstones++;
					}
					previous = value;
				}
				if (policy == ClaimPolicy.LATEST_WINS) {
					// under first-wins a refused claim was never published, so it has no tombstone
					assertThat(evictions.getOrDefault(key, 0)).as("evictions of %s (%s)", key, reproduce)
						.isLessThanOrEqualTo(tombstones);
				}
			});
			if (scenario.retention) {
				assertThat(kafka.readAll(topics.prefix() + ".dlq")).as("no claim too old (%s)", reproduce).isEmpty();
				assertForgotten(kafka, topics, history.subList(0, todayFrom), reproduce);
			}
		}
	}

	/** Every entry of the old keys and values that only the old claims named is forgotten, with its changelog. */
	private static void assertForgotten(KafkaProbe kafka, Topics topics, List<InputRecord> old, String reproduce) {
		Set<String> oldKeys = new HashSet<>();
		Set<String> oldValues = new HashSet<>();
		InputRecord.keysOf(old).stream().filter((key) -> key.startsWith("old-")).forEach(oldKeys::add);
		InputRecord.valuesOf(old).stream().filter((value) -> value.startsWith("old-")).forEach(oldValues::add);
		await("old entries forgotten (" + reproduce + ")").atMost(PATIENCE).untilAsserted(() -> {
			assertThat(kafka.table(topics.prefix() + "-keys-bindings-changelog", oldKeys)).isEmpty();
			assertThat(kafka.table(topics.prefix() + "-values-owners-changelog", oldValues)).isEmpty();
		});
	}

	private static void send(KafkaProbe kafka, Topics topics, InputRecord record) {
		kafka.send(topics.claims(), utf8(record.key()), (record.value() != null) ? utf8(record.value()) : null,
				record.timestamp());
	}

	private static Map<String, String> inverse(Map<String, String> bindings) {
		Map<String, String> owners = new HashMap<>();
		bindings.forEach((key, value) -> owners.put(value, key));
		return owners;
	}

	private Process start(EmbeddedKafkaBroker broker, int port, Topics topics, Scenario scenario, String log)
			throws IOException {
		List<String> command = new ArrayList<>(List.of(ChildJvm.java(), "-Xmx512m", "-jar",
				ChildJvm.applicationJar().getPath(), "--server.port=" + port, "--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
				"--valueguard.embedded-kafka.enabled=false", "--valueguard.topics.partitions=4",
				"--valueguard.policy=" + scenario.policy, "--valueguard.application-id=" + topics.prefix(),
				"--valueguard.topics.claims=" + topics.claims(), "--valueguard.topics.bindings=" + topics.bindings(),
				"--valueguard.topics.evictions=" + topics.evictions(),
				"--valueguard.topics.dlq=" + topics.prefix() + ".dlq",
				"--valueguard.state-dir=" + this.work.resolve(topics.prefix() + "-state"),
				// long commits: the kill lands inside open transactions
				"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=2000",
				"--spring.cloud.stream.kafka.streams.binder.configuration.session.timeout.ms=6000"));
		if (scenario.retention) {
			command.add("--valueguard.retention=1h");
		}
		Process process = new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(this.work.resolve(log).toFile())
			.start();
		this.processes.add(process);
		return process;
	}

	private record Topics(String prefix) {

		String claims() {
			return this.prefix + ".claims";
		}

		String bindings() {
			return this.prefix + ".bindings";
		}

		String evictions() {
			return this.prefix + ".evictions";
		}

		String ownerCommands() {
			return this.prefix + "-owner-commands";
		}

	}

	private void awaitReady(ApiClient api, Process process) {
		await("instance ready").atMost(PATIENCE).ignoreExceptions().until(() -> {
			assertThat(process.isAlive()).as("process alive, see " + this.work).isTrue();
			return api.get("/actuator/health/readiness").status() == 200;
		});
	}



}
