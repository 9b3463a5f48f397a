package io.valueguard;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.valueguard.support.ApiClient;
import io.valueguard.support.FreePorts;
import io.valueguard.support.KafkaProbe;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static io.valueguard.support.TopologyHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The README's recipe for several unique attributes of one record: one JSON topic of users, and one deployment per
 * attribute (its own application id, output topics and value pointer) against one broker. Each keeps its own
 * attribute unique, first-wins, and neither sees the other: a user refused an e-mail address keeps the phone number
 * it got, and a record without an attribute gives that attribute up.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 3, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
class MultiAttributeIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final String USERS = "users";

	@TempDir
	Path state;

	private final List<ConfigurableApplicationContext> deployments = new ArrayList<>();

	@AfterEach
	void stop() {
		this.deployments.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void shouldKeepEachAttributeUniqueInItsOwnDeployment(EmbeddedKafkaBroker broker) {
		ApiClient emails = deploy(broker, "email");
		ApiClient phones = deploy(broker, "phone");

		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			user(kafka, "user-1", "{\"name\":\"Ada\",\"email\":\"ada@example.com\",\"phone\":\"+1-555-0101\"}");
			await("user-1 holds both").atMost(PATIENCE).untilAsserted(() -> {
				assertThat(emails.owners(Set.of("ada@example.com"))).containsEntry("ada@example.com", "user-1");
				assertThat(phones.owners(Set.of("+1-555-0101"))).containsEntry("+1-555-0101", "user-1");
			});
			// each newcomer clashes on one attribute only
			user(kafka, "user-2", "{\"name\":\"Bob\",\"email\":\"ada@example.com\",\"phone\":\"+1-555-0102\"}");
			user(kafka, "user-3", "{\"name\":\"Cy\",\"email\":\"cy@example.com\",\"phone\":\"+1-555-0101\"}");
			// a user without a phone: nothing to claim in the phone deployment
			user(kafka, "user-4", "{\"name\":\"Di\",\"email\":\"di@example.com\"}");

			Set<String> users = Set.of("user-1", "user-2", "user-3", "user-4");
			await("each attribute unique on its own").atMost(PATIENCE).untilAsserted(() -> {
				assertThat(emails.boundValues(users)).isEqualTo(Map.of("user-1", "ada@example.com", "user-3",
						"cy@example.com", "user-4", "di@example.com"));
				assertThat(phones.boundValues(users))
					.isEqualTo(Map.of("user-1", "+1-555-0101", "user-2", "+1-555-0102"));
				assertThat(emails.get("/api/claims/user-2").json().get("bound").asBoolean()).isFalse();
				assertThat(phones.get("/api/claims/user-3").json().get("bound").asBoolean()).isFalse();
			});
			// the stores show a task's writes before its commit; the topics, read committed, only after it
			await("bindings topics").atMost(PATIENCE).untilAsserted(() -> {
				assertThat(kafka.table("signup-email.bindings", users)).isEqualTo(Map.of("user-1",
						"ada@example.com", "user-3", "cy@example.com", "user-4", "di@example.com"));
				assertThat(kafka.table("signup-phone.bindings", users))
					.isEqualTo(Map.of("user-1", "+1-555-0101", "user-2", "+1-555-0102"));
			});

			// Ada drops her phone number: the phone deployment frees it, her address stays hers
			user(kafka, "user-1", "{\"name\":\"Ada\",\"email\":\"ada@example.com\"}");
			await("the phone number is free").atMost(PATIENCE)
				.untilAsserted(() -> assertThat(phones.owner("+1-555-0101").status()).isEqualTo(404));
			assertThat(emails.owners(Set.of("ada@example.com"))).containsEntry("ada@example.com", "user-1");
		}
	}

	private static void user(KafkaProbe kafka, String id, String json) {
		kafka.send(USERS, utf8(id), utf8(json), System.currentTimeMillis());
	}

	/** One deployment for one attribute, with the settings the README gives. */
	private ApiClient deploy(EmbeddedKafkaBroker broker, String attribute) {
		int port = FreePorts.next();
		String id = "signup-" + attribute;
		this.deployments.add(new SpringApplicationBuilder(ValueGuardApplication.class).run("--server.port=" + port,
				"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
				"--valueguard.embedded-kafka.enabled=false", "--valueguard.topics.partitions=3",
				"--valueguard.state-dir=" + this.state.resolve(id), "--valueguard.policy=first-wins",
				"--valueguard.application-id=" + id, "--valueguard.topics.claims=" + USERS,
				"--valueguard.topics.bindings=" + id + ".bindings", "--valueguard.topics.evictions=" + id + ".evictions",
				"--valueguard.topics.dlq=" + id + ".dlq", "--valueguard.claims.format=json",
				"--valueguard.claims.value-pointer=/" + attribute));
		ApiClient api = new ApiClient(port);
		await(id + " ready").atMost(PATIENCE).until(() -> api.get("/actuator/health/readiness").status() == 200);
		return api;
	}

}
