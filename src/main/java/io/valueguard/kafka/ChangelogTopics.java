package io.valueguard.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.streams.StreamsConfig;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * Creates the changelog topics of a stage's stores before the stage starts, as Kafka Streams would create them, so
 * that a build which adds a store can be rolled out one instance at a time. Kafka Streams creates changelogs only in
 * the group's leader, from the leader's own topology: while an instance of an earlier build leads, the new store's
 * topic would never be created, and the new build's tasks would wait for it for good (README, "Upgrading").
 */
@Component
public class ChangelogTopics {

	private static final Log logger = LogFactory.getLog(ChangelogTopics.class);

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	/** The stores of each stage that have a changelog, by the stage's application id. */
	public record Stores(Map<String, List<String>> byApplicationId) {

		public Stores {
			byApplicationId = Map.copyOf(byApplicationId);
		}

	}

	private final Stores stores;

	private final Map<String, Integer> partitions;

	private final Map<String, String> storeConfigs;

	private final Map<String, Object> adminConfiguration;

	/**
	 * @param provisioner the topics the stages read, which it has made sure exist, and so how many tasks each stage
	 * has: one changelog partition per task
	 */
	@Autowired
	public ChangelogTopics(Stores stores, TopicProvisioner provisioner, ValueGuardProperties properties,
			KafkaAdmin kafkaAdmin) {
		this(stores, Map.of(properties.keyStageApplicationId(), provisioner.claimsPartitions(),
				properties.valueStageApplicationId(), provisioner.ownerCommandsPartitions()),
				properties.store().compaction(), kafkaAdmin.getConfigurationProperties());
	}

	/**
	 * @param partitions each stage's partition count (of the topics it reads), by application id
	 * @param storeConfigs the settings every store passes for its changelog
	 * @param adminConfiguration how to reach the cluster
	 */
	ChangelogTopics(Stores stores, Map<String, Integer> partitions, Map<String, String> storeConfigs,
			Map<String, Object> adminConfiguration) {
		this.stores = stores;
		this.partitions = Map.copyOf(partitions);
		this.storeConfigs = Map.copyOf(storeConfigs);
		this.adminConfiguration = Map.copyOf(adminConfiguration);
	}

	/** The changelog topic of the store {@code store} of the Kafka Streams application {@code applicationId}. */
	static String topicOf(String applicationId, String store) {
		return applicationId + "-" + store + "-changelog";
	}

	/**
	 * The topics Kafka Streams would create for the stage {@code applicationId}'s changelogs, given the stage's
	 * client configuration: compacted, timestamps as the records carry them, the configuration's {@code topic.}
	 * settings, then the store's own (its compaction lag and tombstone retention), with the configuration's
	 * replication factor. None for an application that is not a stage.
	 */
	List<NewTopic> topicsFor(String applicationId, Properties configuration) {
		List<String> changelogged = this.stores.byApplicationId().get(applicationId);
		Integer count = this.partitions.get(applicationId);
		if (changelogged == null || count == null) {
			return List.of();
		}
		Map<String, String> configs = new HashMap<>();
		configs.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
		configs.put(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG, "CreateTime");
		configuration.stringPropertyNames()
			.stream()
			.filter((name) -> name.startsWith(StreamsConfig.TOPIC_PREFIX))
			.forEach((name) -> configs.put(name.substring(StreamsConfig.TOPIC_PREFIX.length()),
					configuration.getProperty(name)));
		configs.putAll(this.storeConfigs);
		Optional<Short> replicas = Optional
			.ofNullable(configuration.getProperty(StreamsConfig.REPLICATION_FACTOR_CONFIG))
			.map(Short::valueOf)
			.filter((factor) -> factor > 0);
		return changelogged.stream()
			.map((store) -> new NewTopic(topicOf(applicationId, store), Optional.of(count), replicas).configs(configs))
			.toList();
	}

	/**
	 * Creates those of the stage's changelog topics that do not exist yet. One that exists is left as it is: Kafka
	 * Streams checks its partition count when it assigns tasks. A failure is logged, not thrown: Kafka Streams tries
	 * again as it starts, and says what is wrong if it cannot either.
	 * @return the id of each of the stage's changelog topics, by name, as far as the cluster told them: which
	 * incarnation of each topic the stage's local state is restored from ({@link LocalStateOrigin})
	 */
	public Map<String, String> ensure(String applicationId, Properties configuration) {
		List<NewTopic> topics = topicsFor(applicationId, configuration);
		Map<String, String> ids = new TreeMap<>();
		if (topics.isEmpty()) {
			return ids;
		}
		try (Admin admin = Admin.create(this.adminConfiguration)) {
			// only the stage's own topics are asked about: a shared cluster may hold thousands
			Map<String, KafkaFuture<TopicDescription>> described = admin
				.describeTopics(topics.stream().map(NewTopic::name).toList())
				.topicNameValues();
			for (NewTopic topic : topics) {
				Optional<Uuid> id = idOf(described.get(topic.name()));
				if (id.isEmpty()) {
					id = create(admin, topic);
				}
				id.ifPresent((known) -> ids.put(topic.name(), known.toString()));
			}
		}
		catch (ExecutionException | TimeoutException ex) {
			logger.warn("Could not describe the changelog topics of " + applicationId
					+ " before it starts; Kafka Streams creates them when this instance leads its group: " + ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return ids;
	}

	/**
	 * The command that creates {@code topic} as this class would, for a platform team whose cluster does not let
	 * ValueGuard create topics.
	 */
	static String createCommand(NewTopic topic) {
		StringBuilder command = new StringBuilder("kafka-topics.sh --bootstrap-server <brokers> --create --topic ")
			.append(topic.name())
			.append(" --partitions ")
			.append(topic.numPartitions());
		if (topic.replicationFactor() > 0) {
			command.append(" --replication-factor ").append(topic.replicationFactor());
		}
		new TreeMap<>(topic.configs()).forEach((name, value) -> command.append(" --config ")
			.append(name)
			.append('=')
			.append(value));
		return command.toString();
	}

	/** The topic's id, or none if it does not exist. */
	private static Optional<Uuid> idOf(KafkaFuture<TopicDescription> description)
			throws ExecutionException, TimeoutException, InterruptedException {
		try {
			return Optional.of(description.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).topicId());
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof UnknownTopicOrPartitionException) {
				return Optional.empty();
			}
			throw ex;
		}
	}

	/** Creates the topic; its id, unless another instance created it first or it could not be created. */
	private static Optional<Uuid> create(Admin admin, NewTopic topic) throws InterruptedException {
		try {
			CreateTopicsResult created = admin.createTopics(List.of(topic));
			Uuid id = created.topicId(topic.name()).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
			logger.info("Created changelog topic '" + topic.name() + "' with " + topic.numPartitions()
					+ " partitions before its stage starts");
			return Optional.of(id);
		}
		catch (ExecutionException ex) {
			if (!(ex.getCause() instanceof TopicExistsException)) {
				logger.warn("Could not create changelog topic '" + topic.name() + "' before its stage starts; Kafka "
						+ "Streams creates it when this instance leads its group: " + ex.getCause()
						+ ". While an instance of an earlier build leads, this stage's tasks wait for it: create it as "
						+ "Kafka Streams would, with " + createCommand(topic));
			}
		}
		catch (TimeoutException ex) {
			logger.warn("Could not create changelog topic '" + topic.name() + "' within " + TIMEOUT.toSeconds()
					+ "s before its stage starts; Kafka Streams creates it when this instance leads its group");
		}
		return Optional.empty();
	}

}
