package io.valueguard.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import io.valueguard.config.ValueGuardProperties;
import io.valueguard.support.TestProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

@Tag("integration")
@EmbeddedKafka(partitions = 1)
@ExtendWith(OutputCaptureExtension.class)
class TopicProvisionerIntegrationTests {

	@Test
	void shouldCreateEveryTopicWithTheKeyStagesInternalTopicsPartitionedLikeExistingClaims(EmbeddedKafkaBroker broker)
			throws Exception {
		ValueGuardProperties properties = properties("first");
		try (Admin admin = admin(broker)) {
			admin.createTopics(List.of(new NewTopic(properties.topics().claims(), 3, (short) 1))).all().get();

			TopicProvisioner provisioner = new TopicProvisioner(properties, kafkaAdmin(broker));

			assertThat(provisioner.claimsPartitions()).isEqualTo(3);
			// metadata of new topics reaches every broker component shortly after creation
			await("topics described").atMost(Duration.ofSeconds(30)).ignoreExceptions().untilAsserted(() -> {
				Map<String, TopicDescription> topics = admin.describeTopics(Set.of(properties.evictionFeedbackTopic(),
						properties.reroutedClaimsTopic(), properties.ownerCommandsTopic(), properties.topics().bindings(), properties.topics().evictions(),
						properties.topics().dlq()))
					.allTopicNames()
					.get();
				assertThat(topics.get(properties.evictionFeedbackTopic()).partitions()).hasSize(3);
				assertThat(topics.get(properties.reroutedClaimsTopic()).partitions()).hasSize(3);
				assertThat(topics.get(properties.ownerCommandsTopic()).partitions()).hasSize(6);
				ConfigResource bindings = new ConfigResource(ConfigResource.Type.TOPIC, properties.topics().bindings());
				assertThat(admin.describeConfigs(List.of(bindings)).all().get().get(bindings).get("cleanup.policy").value())
					.isEqualTo("compact");
			});
		}
	}

	@Test
	void shouldFailFastWhenFeedbackTopicBreaksCoPartitioning(EmbeddedKafkaBroker broker) throws Exception {
		ValueGuardProperties properties = properties("second");
		try (Admin admin = admin(broker)) {
			admin.createTopics(List.of(new NewTopic(properties.topics().claims(), 4, (short) 1),
					new NewTopic(properties.evictionFeedbackTopic(), 2, (short) 1)))
				.all()
				.get();
		}

		assertThatIllegalStateException().isThrownBy(() -> new TopicProvisioner(properties, kafkaAdmin(broker)))
			.withMessageContaining("'second-eviction-feedback' has 2 partitions")
			.withMessageContaining("'second.claims' has 4");
	}

	@Test
	void shouldFailFastWhenReroutedClaimsTopicBreaksCoPartitioning(EmbeddedKafkaBroker broker) throws Exception {
		ValueGuardProperties properties = properties("fifth");
		try (Admin admin = admin(broker)) {
			admin.createTopics(List.of(new NewTopic(properties.topics().claims(), 4, (short) 1),
					new NewTopic(properties.reroutedClaimsTopic(), 6, (short) 1)))
				.all()
				.get();
		}

		assertThatIllegalStateException().isThrownBy(() -> new TopicProvisioner(properties, kafkaAdmin(broker)))
			.withMessageContaining("'fifth-rerouted-claims' has 6 partitions")
			.withMessageContaining("'fifth.claims' has 4")
			.withMessageContaining("goes to its key's partition");
	}

	@Test
	void shouldCreateTheClaimsTopicSoThatTheBrokerRefusesClaimsFromAClockAhead(EmbeddedKafkaBroker broker)
			throws Exception {
		ValueGuardProperties properties = properties("third");
		new TopicProvisioner(properties, kafkaAdmin(broker));
		try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()),
				new StringSerializer(), new StringSerializer())) {
			long now = System.currentTimeMillis();
			producer.send(new ProducerRecord<>("third.claims", null, now + 10_000, "honest", "seat-1")).get();

			assertThatExceptionOfType(ExecutionException.class)
				.isThrownBy(() -> producer.send(new ProducerRecord<>("third.claims", null, now + 120_000, "mallory",
						"seat-1")).get())
				.withCauseInstanceOf(InvalidTimestampException.class);
		}
	}

	@Test
	void shouldWarnOnceAboutAnExistingClaimsTopicThatTakesRecordsFurtherAhead(EmbeddedKafkaBroker broker,
			CapturedOutput output) throws Exception {
		ValueGuardProperties properties = properties("fourth");
		try (Admin admin = admin(broker)) {
			admin.createTopics(List.of(new NewTopic(properties.topics().claims(), 2, (short) 1))).all().get();
		}

		new TopicProvisioner(properties, kafkaAdmin(broker));

		assertThat(output).containsOnlyOnce("The claims topic 'fourth.claims' accepts records up to")
			.contains("message.timestamp.after.max.ms=60000");
	}

	private static ValueGuardProperties properties(String prefix) {
		return TestProperties.of(Map.of("valueguard.application-id", prefix, "valueguard.topics.claims",
				prefix + ".claims", "valueguard.topics.bindings", prefix + ".bindings", "valueguard.topics.evictions",
				prefix + ".evictions", "valueguard.topics.dlq", prefix + ".claims.dlq"));
	}

	private static Admin admin(EmbeddedKafkaBroker broker) {
		return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()));
	}

	private static KafkaAdmin kafkaAdmin(EmbeddedKafkaBroker broker) {
		return new KafkaAdmin(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()));
	}

}
