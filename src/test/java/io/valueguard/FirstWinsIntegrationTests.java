package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.valueguard.support.ApiClient;
import io.valueguard.support.FirstWinsModel;
import io.valueguard.support.FreePorts;
import io.valueguard.support.InputRecord;
import io.valueguard.support.KafkaProbe;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Sign-ups under first-wins, on three instances with 6 partitions: keys race for e-mail addresses through different
 * instances at once, each with a synchronous claim. Every address goes to exactly one of its racers; every other racer
 * is told LOST with the holder's name, gets one REFUSED event, and never appears in the bindings topic; the final
 * state is the first-wins rule applied in the order the command partitions carry the claims; and a refused claim is
 * not queued: the address goes to whoever claims it after its holder lets go.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 6, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FirstWinsIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final int ADDRESSES = 12;

	private static final int RACERS = 6;

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final List<ApiClient> apis = new ArrayList<>();

	private static final Map<String, String> winners = new HashMap<>();

	private static final List<InputRecord> history = new ArrayList<>();

	@TempDir
	static Path state;

	@BeforeAll
	static void startThreeInstances(EmbeddedKafkaBroker broker) {
		for (int i = 0; i < 3; i++) {
			int port = FreePorts.next();
			instances.add(new SpringApplicationBuilder(ValueGuardApplication.class).run("--server.port=" + port,
					"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"--valueguard.embedded-kafka.enabled=false", "--valueguard.topics.partitions=6",
					"--valueguard.policy=first-wins", "--valueguard.state-dir=" + state.resolve("instance-" + i),
					"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=50"));
			apis.add(new ApiClient(port, Duration.ofSeconds(60)));
		}
		for (ApiClient api : apis) {
			await("instance ready").atMost(PATIENCE)
				.until(() -> api.get("/actuator/health/readiness").status() == 200);
		}
	}

	@AfterAll
	static void stopInstances() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	@Order(1)
	void shouldGiveEachAddressToExactlyOneOfTheKeysRacingForIt(EmbeddedKafkaBroker broker) throws Exception {
		Map<String, List<Future<ApiClient.Reply>>> answers = new HashMap<>();
		ExecutorService racers = Executors.newFixedThreadPool(ADDRESSES * RACERS);
		try {
			for (int racer = 0; racer < RACERS; racer++) {
				for (int a = 0; a < ADDRESSES; a++) {
					String address = address(a);
					String account = "account-" + a + "-" + racer;
					ApiClient api = apis.get((a + racer) % apis.size());
					answers.computeIfAbsent(address, (key) -> new ArrayList<>())
						.add(racers.submit(() -> api.claim(account, address, "30s")));
					history.add(new InputRecord(account, address, 0));
				}
			}
			for (int a = 0; a < ADDRESSES; a++) {
				String address = address(a);
				List<JsonNode> rulings = new ArrayList<>();
				for (Future<ApiClient.Reply> answer : answers.get(address)) {
					ApiClient.Reply reply = answer.get();
					assertThat(reply.status()).as(reply.body()).isEqualTo(200);
					rulings.add(reply.json());
				}
				List<JsonNode> bound = rulings.stream()
					.filter((ruling) -> ruling.get("outcome").asString().equals("BOUND"))
					.toList();
				assertThat(bound).as("exactly one winner of %s: %s", address, rulings).hasSize(1);
				String winner = bound.get(0).get("key").asString();
				winners.put(address, winner);
				assertThat(rulings).filteredOn((ruling) -> ruling.get("outcome").asString().equals("LOST"))
					.hasSize(RACERS - 1)
					.allSatisfy((ruling) -> assertThat(ruling.get("owner").get("key").asString()).isEqualTo(winner));
			}
		}
		finally {
			racers.shutdownNow();
		}

		Set<String> keys = InputRecord.keysOf(history);
		Set<String> addresses = InputRecord.valuesOf(history);
		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			// the rule applied in the committed order of the command partitions gives the same winners
			FirstWinsModel model = new FirstWinsModel().history(history)
				.arbitrate(kafka.ownerCommands("valueguard-owner-commands"));
			assertThat(model.owners()).isEqualTo(winners);
			await("bindings topic").atMost(PATIENCE)
				.untilAsserted(() -> assertThat(kafka.table("valueguard.bindings", keys)).isEqualTo(model.bindings()));

			Set<String> published = new HashSet<>();
			for (ConsumerRecord<byte[], byte[]> record : kafka.readAll("valueguard.bindings")) {
				published.add(new String(record.key(), StandardCharsets.UTF_8));
			}
			assertThat(published).as("a refused claim never shows in the bindings topic")
				.containsExactlyInAnyOrderElementsOf(winners.values());

			Map<String, String> refusals = new HashMap<>();
			await("one REFUSED event per loser").atMost(PATIENCE).untilAsserted(() -> {
				refusals.clear();
				for (ConsumerRecord<byte[], byte[]> record : kafka.readAll("valueguard.evictions")) {
					JsonNode event = JSON.readTree(record.value());
					assertThat(event.get("reason").asString()).isEqualTo("REFUSED");
					assertThat(refusals.put(event.get("key").asString(), event.get("evictedBy").asString()))
						.as("one event for %s", event.get("key").asString())
						.isNull();
				}
				assertThat(refusals).hasSize(ADDRESSES * (RACERS - 1));
			});
			refusals.forEach((loser, holder) -> assertThat(winners).containsValue(holder));
		}

		for (ApiClient api : apis) {
			await("every instance agrees").atMost(PATIENCE).untilAsserted(() -> {
				assertThat(api.owners(addresses)).isEqualTo(winners);
				Map<String, String> boundKeys = new HashMap<>();
				winners.forEach((address, winner) -> boundKeys.put(winner, address));
				assertThat(api.boundValues(keys)).isEqualTo(boundKeys);
			});
		}
		String loser = keys.stream().filter((key) -> !winners.containsValue(key)).findFirst().orElseThrow();
		JsonNode claim = apis.get(2).get("/api/claims/" + loser).json();
		assertThat(claim.get("bound").asBoolean()).isFalse();
		assertThat(claim.get("pending").asBoolean()).isFalse();
	}

	@Test
	@Order(2)
	void shouldGiveAFreedAddressToTheNextClaimNotToAnEarlierRefusedOne() {
		String address = address(0);
		String holder = winners.get(address);
		String refused = history.stream()
			.map(InputRecord::key)
			.filter((key) -> key.startsWith("account-0-") && !key.equals(holder))
			.findFirst()
			.orElseThrow();

		assertThat(apis.get(0).release(holder, "30s").status()).isEqualTo(200);
		await("the address is free").atMost(PATIENCE)
			.untilAsserted(() -> assertThat(apis.get(1).owner(address).status()).isEqualTo(404));
		// the refused claim was not queued: nobody holds the address until someone claims it
		assertThat(apis.get(2).binding(refused).status()).isEqualTo(404);

		ApiClient.Reply newcomer = apis.get(1).claim("newcomer", address, "30s");
		assertThat(newcomer.json().get("outcome").asString()).as(newcomer.body()).isEqualTo("BOUND");
		// the answer is never ahead of the key's own record: read at once, from any instance, the binding is there
		for (ApiClient api : apis) {
			ApiClient.Reply binding = api.binding("newcomer");
			assertThat(binding.status()).as(binding.body()).isEqualTo(200);
			assertThat(binding.json().get("value").asString()).isEqualTo(address);
		}
		ApiClient.Reply again = apis.get(2).claim(refused, address, "30s");
		assertThat(again.json().get("outcome").asString()).as(again.body()).isEqualTo("LOST");
		assertThat(again.json().get("owner").get("key").asString()).isEqualTo("newcomer");
	}

	@Test
	@Order(3)
	void shouldShowEveryBoundSignUpAtOnceOnEveryInstanceSingleOrInABatch() {
		// a BOUND is answered once the value stage has granted the claim, a commit of the value stage before the grant
		// reaches the key; lookups right after it must find the binding all the same, on any instance
		for (int i = 0; i < 30; i++) {
			String key = "signup-" + i;
			String address = "signup" + i + "@example.com";
			ApiClient.Reply signUp = apis.get(i % apis.size()).claim(key, address, "30s");
			assertThat(signUp.json().get("outcome").asString()).as(signUp.body()).isEqualTo("BOUND");

			ApiClient.Reply batch = apis.get((i + 1) % apis.size()).postJson("/api/bindings/lookup", "[\"" + key + "\"]");
			assertThat(batch.status()).as(batch.body()).isEqualTo(200);
			assertThat(batch.json().path(key).path("value").asString()).as(batch.body()).isEqualTo(address);
			ApiClient.Reply single = apis.get((i + 2) % apis.size()).binding(key);
			assertThat(single.status()).as(single.body()).isEqualTo(200);
			assertThat(single.json().get("value").asString()).isEqualTo(address);
		}
	}

	private static String address(int index) {
		return "user" + index + "@example.com";
	}

}
