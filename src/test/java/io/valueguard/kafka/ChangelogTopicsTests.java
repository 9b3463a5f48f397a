package io.valueguard.kafka;

import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ChangelogTopicsTests {

	private final ChangelogTopics changelogs = new ChangelogTopics(
			new ChangelogTopics.Stores(Map.of("vg-keys", List.of("bindings", "bindings-applied-offsets"), "vg-values",
					List.of("owners"))),
			Map.of("vg-keys", 3, "vg-values", 6), Map.of("max.compaction.lag.ms", "86400000"), Map.of());

	@Test
	void shouldMakeATopicForEachStoreOfTheStageWithAPartitionForEachTask() {
		List<NewTopic> topics = this.changelogs.topicsFor("vg-keys", new Properties());

		assertThat(topics).extracting(NewTopic::name)
			.containsExactly("vg-keys-bindings-changelog", "vg-keys-bindings-applied-offsets-changelog");
		assertThat(topics).extracting(NewTopic::numPartitions).containsOnly(3);
		assertThat(this.changelogs.topicsFor("vg-values", new Properties())).extracting(NewTopic::numPartitions)
			.containsExactly(6);
	}

	@Test
	void shouldSetWhatKafkaStreamsSetsThenTheClientsTopicSettingsThenTheStores() {
		Properties configuration = new Properties();
		configuration.setProperty("topic.min.insync.replicas", "2");
		configuration.setProperty("topic.max.compaction.lag.ms", "1000");
		configuration.setProperty("topic.cleanup.policy", "compact,delete");
		configuration.setProperty("replication.factor", "3");
		configuration.setProperty("producer.linger.ms", "5");

		NewTopic topic = this.changelogs.topicsFor("vg-values", configuration).get(0);

		// Kafka Streams' order: its own overrides, the client's topic. settings, the store's changelog settings
		assertThat(topic.configs()).containsExactlyInAnyOrderEntriesOf(Map.of("cleanup.policy", "compact,delete",
				"message.timestamp.type", "CreateTime", "min.insync.replicas", "2", "max.compaction.lag.ms",
				"86400000"));
		assertThat(topic.replicationFactor()).isEqualTo((short) 3);
	}

	@Test
	void shouldLeaveTheReplicationFactorToTheBrokerWhenTheClientDoes() {
		Properties configuration = new Properties();
		configuration.setProperty("replication.factor", "-1");

		assertThat(this.changelogs.topicsFor("vg-keys", configuration))
			.allSatisfy((topic) -> assertThat(topic.replicationFactor()).isEqualTo((short) -1));
		assertThat(this.changelogs.topicsFor("vg-keys", new Properties()))
			.allSatisfy((topic) -> assertThat(topic.replicationFactor()).isEqualTo((short) -1));
	}

	@Test
	void shouldTellAPlatformTeamHowToCreateATopicItCouldNotCreate() {
		Properties configuration = new Properties();
		configuration.setProperty("replication.factor", "3");
		configuration.setProperty("topic.min.insync.replicas", "2");

		assertThat(ChangelogTopics.createCommand(this.changelogs.topicsFor("vg-values", configuration).get(0)))
			.isEqualTo("kafka-topics.sh --bootstrap-server <brokers> --create --topic vg-values-owners-changelog "
					+ "--partitions 6 --replication-factor 3 --config cleanup.policy=compact "
					+ "--config max.compaction.lag.ms=86400000 --config message.timestamp.type=CreateTime "
					+ "--config min.insync.replicas=2");
		assertThat(ChangelogTopics.createCommand(this.changelogs.topicsFor("vg-values", new Properties()).get(0)))
			.as("the broker's default replication factor").doesNotContain("--replication-factor");
	}

	@Test
	void shouldMakeNothingForAnApplicationThatIsNotAStage() {
		assertThat(this.changelogs.topicsFor("someone-else", new Properties())).isEmpty();
	}

}
