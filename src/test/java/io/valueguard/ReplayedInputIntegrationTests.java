package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.valueguard.support.ApiClient;
import io.valueguard.support.EmbeddedBrokers;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.ServiceInstance;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Kafka hands a stage input it applied before when its group's committed offsets go back: expired while the service
 * was down longer than the broker's {@code offsets.retention.minutes}, reset by an operator, or lost by the broker's
 * group coordinator (docs/reliability.md). Applied again against stores that already hold their effect, old claims
 * count at their keys' later clocks and take values from keys that won them fairly. Each stage therefore keeps, with
 * its state, the offset it applied last on each input partition, and passes over what lies at or below it.
 */
@Tag("integration")
class ReplayedInputIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final String ID = "replayed";

	@TempDir
	Path work;

	private final EmbeddedKafkaKraftBroker broker = EmbeddedBrokers.exactlyOnce();

	@AfterEach
	void stopBroker() {
		this.broker.destroy();
	}

	@Test
	void shouldNotApplyClaimsAgainWhenTheGroupsCommittedOffsetsAreGone() throws Exception {
		long t = System.currentTimeMillis();
		try (ServiceInstance first = start(); KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString())) {
			// alice takes v1, bob takes it from her later, and alice moves on to v2 later still: her clock is
			// past bob's claim, so her first claim, applied again, would count at her clock and beat bob's
			ApiClient api = first.api();
			claim(kafka, "alice", "v1", t);
			await("alice holds v1").atMost(PATIENCE).until(() -> api.binding("alice").status() == 200);
			claim(kafka, "bob", "v1", t + 1_000);
			await("bob took v1 from alice").atMost(PATIENCE)
				.untilAsserted(() -> assertThat(api.boundValues(Set.of("alice", "bob"))).isEqualTo(Map.of("bob", "v1")));
			claim(kafka, "alice", "v2", t + 2_000);
			await("alice holds v2").atMost(PATIENCE)
				.untilAsserted(() -> assertThat(api.boundValues(Set.of("alice", "bob")))
					.isEqualTo(Map.of("alice", "v2", "bob", "v1")));
		}
		forgetCommittedOffsets();

		try (ServiceInstance again = start(); KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString())) {
			// one more claim behind the old ones: once it is bound, the stage has read past all of them
			claim(kafka, "carol", "v3", t + 3_000);
			ApiClient api = again.api();
			await("the claim behind the old ones applied").atMost(PATIENCE)
				.until(() -> api.binding("carol").status() == 200);
			assertThat(api.boundValues(Set.of("alice", "bob", "carol")))
				.isEqualTo(Map.of("alice", "v2", "bob", "v1", "carol", "v3"));
			assertThat(api.owners(Set.of("v1", "v2", "v3")))
				.isEqualTo(Map.of("v1", "bob", "v2", "alice", "v3", "carol"));
			assertThat(kafka.readAll(ID + ".evictions")).as("evictions, each written once")
				.extracting(ReplayedInputIntegrationTests::text)
				.containsExactly("alice");
		}
	}

	@Test
	void shouldApplyTheRecordsOfAClaimsTopicCreatedAgain() throws Exception {
		long t = System.currentTimeMillis();
		try (ServiceInstance first = start(); KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString())) {
			claim(kafka, "alice", "v1", t);
			claim(kafka, "bob", "v2", t + 1);
			claim(kafka, "carol", "v3", t + 2);
			await("the claims applied").atMost(PATIENCE)
				.until(() -> first.api().boundValues(Set.of("alice", "bob", "carol")).size() == 3);
		}
		// the claims topic deleted and created again, the stages' topics and changelogs kept: the marks come back
		// with their changelog, and must not hold back the new topic's first offsets
		try (Admin admin = admin()) {
			admin.deleteTopics(List.of(ID + ".claims")).all().get(30, TimeUnit.SECONDS);
			await("the claims topic gone").atMost(PATIENCE)
				.until(() -> !admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(ID + ".claims"));
		}

		try (ServiceInstance again = start(); KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString())) {
			claim(kafka, "dave", "v4", t + 3);
			await("the new topic's first claim applied").atMost(PATIENCE)
				.until(() -> again.api().binding("dave").status() == 200);
		}
	}

	/** What the broker does to a group whose members are all gone longer than its offsets' retention. */
	private void forgetCommittedOffsets() {
		try (Admin admin = admin()) {
			// static members stay in their groups for a session timeout after their instance stops
			await("the stages' groups deleted").atMost(PATIENCE).pollInterval(Duration.ofSeconds(1)).until(() -> {
				try {
					admin.deleteConsumerGroups(List.of(ID + "-keys", ID + "-values")).all().get(10, TimeUnit.SECONDS);
					return true;
				}
				catch (ExecutionException ex) {
					return false;
				}
			});
		}
	}

	private Admin admin() {
		return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, this.broker.getBrokersAsString()));
	}

	private ServiceInstance start() {
		return ServiceInstance.start(ID, this.broker.getBrokersAsString(), this.work.resolve("state"), PATIENCE);
	}

	private static void claim(KafkaProbe kafka, String key, String value, long timestamp) {
		kafka.send(ID + ".claims", key.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8),
				timestamp);
	}

	private static String text(ConsumerRecord<byte[], byte[]> record) {
		return new String(record.key(), StandardCharsets.UTF_8);
	}

}
