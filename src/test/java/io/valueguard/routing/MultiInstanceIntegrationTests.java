package io.valueguard.routing;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.valueguard.ValueGuardApplication;
import io.valueguard.support.ApiClient;
import io.valueguard.support.FreePorts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances on three ports, one broker, 6 partitions: any instance answers any lookup and listing, identically,
 * and keeps answering when one instance goes away. The third instance leaves without telling the group (as a crashed
 * pod would), so there is a gap until the group notices: stale reads with {@code maxLag} answer during it, and plain
 * lookups are answered by the new active once it is over.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 6, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiInstanceIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final List<ApiClient> apis = new ArrayList<>();

	private static final List<String> names = new ArrayList<>();

	private static final Map<String, String> expectedBindings = new LinkedHashMap<>();

	private static final Map<String, String> expectedOwners = new LinkedHashMap<>();

	@TempDir
	static Path state;

	@BeforeAll
	static void startThreeInstances(EmbeddedKafkaBroker broker) {
		for (int i = 0; i < 3; i++) {
			int port = FreePorts.next();
			List<String> args = new ArrayList<>(List.of("--server.port=" + port,
					"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"--valueguard.embedded-kafka.enabled=false", "--valueguard.topics.partitions=6",
					"--valueguard.state-dir=" + state.resolve("instance-" + i), "--valueguard.standby-replicas=1",
					"--valueguard.query.retry-budget=3s",
					"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=50",
					"--spring.cloud.stream.kafka.streams.binder.configuration.session.timeout.ms=10000"));
			if (i == 0) {
				// API answers follow spring.jackson.*, the instance protocol must not: instances configured differently
				// still read each other (the protocol's own mapper, InstanceProtocolServlet)
				args.add("--spring.jackson.property-naming-strategy=SNAKE_CASE");
			}
			if (i == 2) {
				// the one that will go away does so without leaving the group, like a crash
				args.add("--valueguard.streams.leave-group-on-close=false");
			}
			instances.add(new SpringApplicationBuilder(ValueGuardApplication.class).run(args.toArray(String[]::new)));
			apis.add(new ApiClient(port));
			names.add("localhost:" + port);
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
	void shouldAnswerEveryLookupIdenticallyFromEveryInstance() {
		for (int i = 0; i < 40; i++) {
			assertThat(apis.get(0).claim("key-" + i, "value-" + i).status()).isEqualTo(202);
			expectedBindings.put("key-" + i, "value-" + i);
			expectedOwners.put("value-" + i, "key-" + i);
		}
		for (int i = 0; i < 8; i++) {
			// later claims steal the first values: their old holders end unbound
			assertThat(apis.get(1).claim("thief-" + i, "value-" + i).status()).isEqualTo(202);
			expectedBindings.remove("key-" + i);
			expectedBindings.put("thief-" + i, "value-" + i);
			expectedOwners.put("value-" + i, "thief-" + i);
		}

		// keys that need escaping: each is forwarded by the two instances that do not hold it
		List<String> awkward = List.of("a b", "slash/and+plus", "query?&x=y#frag", "percent%20not-a-space", "ünï ☃");
		for (int i = 0; i < awkward.size(); i++) {
			assertThat(apis.get(0).claimByParameter(awkward.get(i), "awkward-" + i).status()).isEqualTo(202);
			expectedBindings.put(awkward.get(i), "awkward-" + i);
			expectedOwners.put("awkward-" + i, awkward.get(i));
		}

		Set<String> servers = new HashSet<>();
		Set<String> forwarded = new HashSet<>();
		for (ApiClient api : apis) {
			String asked = names.get(apis.indexOf(api));
			await("awkward keys right through " + api).atMost(PATIENCE).untilAsserted(() -> {
				for (int i = 0; i < awkward.size(); i++) {
					ApiClient.Reply reply = api.bindingByParameter(awkward.get(i));
					assertThat(reply.status()).as(awkward.get(i)).isEqualTo(200);
					assertThat(reply.json().get("key").asString()).isEqualTo(awkward.get(i));
					assertThat(reply.json().get("value").asString()).isEqualTo("awkward-" + i);
					String servedBy = reply.headers().firstValue("X-ValueGuard-Served-By").orElseThrow();
					if (!servedBy.equals(asked)) {
						forwarded.add(awkward.get(i));
					}
				}
			});
			await("every answer right through " + api).atMost(PATIENCE).untilAsserted(() -> {
				for (int i = 0; i < 40; i++) {
					String key = "key-" + i;
					ApiClient.Reply reply = api.binding(key);
					if (expectedBindings.containsKey(key)) {
						assertThat(reply.status()).as(key).isEqualTo(200);
						assertThat(reply.json().get("value").asString()).isEqualTo(expectedBindings.get(key));
					}
					else {
						assertThat(reply.status()).as(key).isEqualTo(404);
					}
					assertThat(reply.headers().firstValue("X-ValueGuard-Served-By")).isPresent();
				}
				for (Map.Entry<String, String> owner : expectedOwners.entrySet()) {
					ApiClient.Reply reply = api.owner(owner.getKey());
					assertThat(reply.status()).as(owner.getKey()).isEqualTo(200);
					assertThat(reply.json().get("key").asString()).isEqualTo(owner.getValue());
					servers.add(reply.headers().firstValue("X-ValueGuard-Served-By").orElseThrow());
				}
			});
		}
		assertThat(forwarded).as("each awkward key was forwarded by an instance that does not hold it")
			.containsExactlyInAnyOrderElementsOf(awkward);
		// answers came from all three instances' stores: lookups were forwarded
		assertThat(servers).containsExactlyInAnyOrderElementsOf(names);
		// standbys applied the changelogs, and the listener that counts it is installed with the other customizers
		await("standby updates counted").atMost(PATIENCE)
			.untilAsserted(() -> assertThat(instances.stream()
				.flatMap((instance) -> instance.getBean(MeterRegistry.class)
					.find("valueguard.standby.records.updated")
					.counters()
					.stream())
				.mapToDouble(Counter::count)
				.sum()).isPositive());
	}

	@Test
	@Order(2)
	void shouldAnswerBatchLookupsFromEveryInstance() {
		List<String> keys = new ArrayList<>();
		for (int i = 0; i < 40; i++) {
			keys.add("key-" + i);
		}
		keys.add("nobody");
		String body = keys.stream()
			.map((key) -> "\"" + key + "\"")
			.collect(java.util.stream.Collectors.joining(",", "[", "]"));
		String values = expectedOwners.keySet()
			.stream()
			.map((value) -> "\"" + value + "\"")
			.collect(java.util.stream.Collectors.joining(",", "[", "]"));
		for (ApiClient api : apis) {
			ApiClient.Reply bindings = api.postJson("/api/bindings/lookup", body);
			assertThat(bindings.status()).as(bindings.body()).isEqualTo(200);
			Map<String, String> bound = new HashMap<>();
			bindings.json().properties().forEach((entry) -> {
				if (!entry.getValue().isNull()) {
					bound.put(entry.getKey(), entry.getValue().get("value").asString());
				}
			});
			assertThat(bindings.json().size()).as("every key answered").isEqualTo(keys.size());
			Map<String, String> expected = new HashMap<>(expectedBindings);
			expected.keySet().retainAll(keys);
			assertThat(bound).isEqualTo(expected);

			ApiClient.Reply owners = api.postJson("/api/owners/lookup", values);
			assertThat(owners.status()).isEqualTo(200);
			Map<String, String> owned = new HashMap<>();
			owners.json()
				.properties()
				.forEach((entry) -> owned.put(entry.getKey(), entry.getValue().get("key").asString()));
			assertThat(owned).isEqualTo(expectedOwners);
		}
		String tooMany = java.util.stream.IntStream.range(0, 1001)
			.mapToObj((i) -> "\"k" + i + "\"")
			.collect(java.util.stream.Collectors.joining(",", "[", "]"));
		assertThat(apis.get(0).postJson("/api/bindings/lookup", tooMany).status()).isEqualTo(400);
		assertThat(apis.get(0).postJson("/api/bindings/lookup", "{\"key\":1}").status()).isEqualTo(400);
	}

	@Test
	@Order(3)
	void shouldListEveryEntryExactlyOnceFromEveryInstance() {
		assertThat(apis.get(2).get("/api/bindings?limit=1").headers().firstValue("X-ValueGuard-Served-By"))
			.as("a listing names every instance it read")
			.hasValue(String.join(", ", names.stream().sorted().toList()));
		for (ApiClient api : apis) {
			assertThat(listAll(api, "/api/bindings", "key")).isEqualTo(expectedBindings.keySet().stream().sorted().toList());
			assertThat(listAll(api, "/api/owners", "value")).isEqualTo(expectedOwners.keySet().stream().sorted().toList());
		}
	}

	@Test
	@Order(4)
	void shouldReportEveryInstanceWithItsPartitions() {
		JsonNode reports = apis.get(1).get("/api/instances").json();
		assertThat(reports.size()).isEqualTo(3);
		int activeBindingPartitions = 0;
		for (JsonNode report : reports) {
			assertThat(report.get("reachable").asBoolean()).isTrue();
			assertThat(names).contains(report.get("host").asString());
			for (JsonNode client : report.get("streams")) {
				assertThat(client.get("state").asString()).isEqualTo("RUNNING");
			}
			for (JsonNode store : report.get("stores")) {
				if (store.get("store").asString().equals("bindings") && store.get("role").asString().equals("active")) {
					activeBindingPartitions++;
				}
				assertThat(store.get("offsetLag").asLong()).isGreaterThanOrEqualTo(0);
			}
		}
		assertThat(activeBindingPartitions).isEqualTo(6);
		// the instance with snake_case answers presents the same reports, the others' read through the protocol
		JsonNode snakeCase = apis.get(0).get("/api/instances").json();
		assertThat(snakeCase.size()).isEqualTo(3);
		for (JsonNode report : snakeCase) {
			assertThat(report.get("stores")).isNotEmpty()
				.allSatisfy((store) -> assertThat(store.get("offset_lag").asLong()).isGreaterThanOrEqualTo(0));
		}
	}

	@Test
	@Order(5)
	void shouldRuleOnSynchronousClaimsWhereverKeyAndValueLive() {
		// a key and a value whose partitions live on two different instances, claimed through the third
		String key = null;
		String value = null;
		ApiClient asked = null;
		for (int i = 0; key == null && i < 200; i++) {
			String candidateKey = "sync-key-" + i;
			String candidateValue = "sync-value-" + i;
			String keyHost = servedBy(apis.get(0).binding(candidateKey));
			String valueHost = servedBy(apis.get(0).owner(candidateValue));
			if (!keyHost.equals(valueHost)) {
				key = candidateKey;
				value = candidateValue;
				List<String> third = new ArrayList<>(names);
				third.removeAll(List.of(keyHost, valueHost));
				asked = apis.get(names.indexOf(third.get(0)));
			}
		}
		assertThat(key).as("a key and a value on different instances").isNotNull();

		ApiClient.Reply ruling = asked.claim(key, value, "10s");
		assertThat(ruling.status()).as(ruling.body()).isEqualTo(200);
		assertThat(ruling.json().get("outcome").asString()).isEqualTo("BOUND");
		assertThat(ruling.json().get("owner").get("key").asString()).isEqualTo(key);
		expectedBindings.put(key, value);
		expectedOwners.put(value, key);
	}

	@Test
	@Order(6)
	void shouldKeepAnsweringWhenInstanceGoesAway() {
		String leaving = names.get(2);
		List<String> keysOnLeaving = new ArrayList<>();
		for (String key : expectedBindings.keySet()) {
			if (servedBy(apis.get(0).bindingByParameter(key)).equals(leaving)) {
				keysOnLeaving.add(key);
			}
		}
		assertThat(keysOnLeaving).isNotEmpty();

		instances.get(2).close();

		// during the gap the group still names the stopped instance as active: standbys answer stale reads
		String key = keysOnLeaving.get(0);
		ApiClient.Reply stale = apis.get(0).get("/api/bindings?key=" + ApiClient.parameter(key) + "&maxLag=1000");
		assertThat(stale.status()).isEqualTo(200);
		assertThat(stale.json().get("value").asString()).isEqualTo(expectedBindings.get(key));
		assertThat(stale.headers().firstValue("X-ValueGuard-Served-By")).isPresent().get().isNotEqualTo(leaving);
		assertThat(stale.headers().firstValue("X-ValueGuard-Stale")).as("answered by a standby").contains("true");
		assertThat(stale.headers().firstValue("X-ValueGuard-Offset-Lag")).isPresent();

		// a plain lookup either waits out the gap within its budget or says when to retry
		ApiClient.Reply plain = apis.get(0).bindingByParameter(key);
		if (plain.status() == 503) {
			assertThat(plain.headers().firstValue("Retry-After")).isPresent();
			assertThat(plain.json().get("type").asString()).endsWith("/store-unavailable");
		}
		else {
			assertThat(plain.status()).isEqualTo(200);
		}

		// once the group has moved the partitions, every key is answered by a new active
		await("new actives answer").atMost(PATIENCE).untilAsserted(() -> {
			for (String moved : keysOnLeaving) {
				ApiClient.Reply reply = apis.get(1).bindingByParameter(moved);
				assertThat(reply.status()).as(moved).isEqualTo(200);
				assertThat(reply.json().get("value").asString()).isEqualTo(expectedBindings.get(moved));
				assertThat(reply.headers().firstValue("X-ValueGuard-Served-By").orElseThrow()).isNotEqualTo(leaving);
				assertThat(reply.headers().firstValue("X-ValueGuard-Stale")).isEmpty();
			}
		});
		await("listing complete again").atMost(PATIENCE)
			.untilAsserted(() -> assertThat(listAll(apis.get(0), "/api/bindings", "key"))
				.isEqualTo(expectedBindings.keySet().stream().sorted().toList()));
	}

	/** Pages through a listing with a small page size and returns the keys in the order served. */
	private static List<String> listAll(ApiClient api, String path, String field) {
		List<String> keys = new ArrayList<>();
		String after = null;
		Map<String, Integer> pages = new HashMap<>();
		do {
			ApiClient.Reply reply = api.get(path + "?limit=7" + ((after != null) ? "&after=" + ApiClient.parameter(after) : ""));
			assertThat(reply.status()).as(reply.body()).isEqualTo(200);
			JsonNode page = reply.json();
			for (JsonNode item : page.get("items")) {
				keys.add(item.get(field).asString());
			}
			JsonNode next = page.get("next");
			after = (next == null || next.isNull()) ? null : next.asString();
			pages.merge(path, 1, Integer::sum);
			assertThat(pages.get(path)).isLessThan(100);
		}
		while (after != null);
		return keys;
	}

	private static String servedBy(ApiClient.Reply reply) {
		return reply.headers().firstValue("X-ValueGuard-Served-By").orElseThrow();
	}

}
