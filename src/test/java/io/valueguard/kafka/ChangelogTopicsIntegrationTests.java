package io.valueguard.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The changelog topics ValueGuard creates before a stage starts are the topics Kafka Streams would have created: a
 * Kafka Streams application creates its store's changelog itself, ValueGuard creates the same store's for another
 * application id with the same client configuration, and the two topics must match in partitions, replicas and every
 * setting given for the topic.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 1)
class ChangelogTopicsIntegrationTests {

	private static final Map<String, String> STORE_CONFIG = Map.of("max.compaction.lag.ms", "3600000",
			"delete.retention.ms", "60000");

	@Test
	void shouldCreateTheChangelogsKafkaStreamsWouldCreate(EmbeddedKafkaBroker broker, @TempDir java.nio.file.Path state)
			throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				broker.getBrokersAsString()))) {
			admin.createTopics(List.of(new NewTopic("changelog-input", 3, (short) 1))).all().get();

			try (KafkaStreams streams = new KafkaStreams(topologyWithAStore(), configuration(broker, state,
					"made-by-streams"))) {
				streams.start();
				await("Kafka Streams created its changelog").atMost(Duration.ofMinutes(1))
					.until(() -> admin.listTopics().names().get().contains("made-by-streams-table-changelog"));
			}
			ChangelogTopics changelogs = new ChangelogTopics(
					new ChangelogTopics.Stores(Map.of("made-by-valueguard", List.of("table"))),
					Map.of("made-by-valueguard", 3), STORE_CONFIG,
					Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString()));

			Map<String, String> createdIds = changelogs.ensure("made-by-valueguard",
					configuration(broker, state, "made-by-valueguard"));

			String streamsMade = "made-by-streams-table-changelog";
			String ours = "made-by-valueguard-table-changelog";
			Map<String, TopicDescription> topics = admin.describeTopics(Set.of(streamsMade, ours)).allTopicNames().get();
			assertThat(topics.get(ours).partitions()).hasSameSizeAs(topics.get(streamsMade).partitions());
			assertThat(topics.get(ours).partitions().get(0).replicas())
				.hasSameSizeAs(topics.get(streamsMade).partitions().get(0).replicas());
			assertThat(givenSettings(admin, ours)).isEqualTo(givenSettings(admin, streamsMade))
				.containsEntry("cleanup.policy", "compact")
				.containsEntry("max.compaction.lag.ms", "3600000")
				.containsEntry("min.insync.replicas", "1");

			// the ids the stage's local state is stamped with (LocalStateOrigin)
			assertThat(createdIds).isEqualTo(Map.of(ours, topics.get(ours).topicId().toString()));

			// an existing topic is left as it is, and a second instance's start changes nothing
			assertThat(changelogs.ensure("made-by-valueguard", configuration(broker, state, "made-by-valueguard")))
				.isEqualTo(createdIds);
			assertThat(givenSettings(admin, ours)).isEqualTo(givenSettings(admin, streamsMade));
		}
	}

	/** One source and a processor with a key-value store logged with {@link #STORE_CONFIG}. */
	private static org.apache.kafka.streams.Topology topologyWithAStore() {
		StreamsBuilder builder = new StreamsBuilder();
		builder.addStateStore(Stores
			.keyValueStoreBuilder(Stores.persistentKeyValueStore("table"), Serdes.String(), Serdes.String())
			.withLoggingEnabled(STORE_CONFIG));
		builder.stream("changelog-input", Consumed.with(Serdes.String(), Serdes.String()))
			.process(() -> new Processor<String, String, Void, Void>() {

				@Override
				public void process(Record<String, String> record) {
				}

			}, "table");
		return builder.build();
	}

	private static Properties configuration(EmbeddedKafkaBroker broker, java.nio.file.Path state, String id) {
		Properties configuration = new Properties();
		configuration.put(StreamsConfig.APPLICATION_ID_CONFIG, id);
		configuration.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString());
		configuration.put(StreamsConfig.STATE_DIR_CONFIG, state.resolve(id).toString());
		configuration.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, "1");
		configuration.put(StreamsConfig.topicPrefix("min.insync.replicas"), "1");
		configuration.put(StreamsConfig.topicPrefix("segment.bytes"), "10485760");
		return configuration;
	}

	/** The settings given for the topic itself, not the broker's defaults. */
	private static Map<String, String> givenSettings(Admin admin, String topic) throws Exception {
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
		Config config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
		return config.entries()
			.stream()
			.filter((entry) -> entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
			.collect(Collectors.toMap(ConfigEntry::name, ConfigEntry::value));
	}

}
