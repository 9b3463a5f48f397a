package io.valueguard.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * Creates every topic ValueGuard needs at start-up and checks the ones that exist. The claims topic, the eviction
 * feedback topic and the rerouted-claims topic feed one stream task per partition, so they must have the same
 * partition count: the internal two are created with the claims topic's count, and a mismatch stops start-up with a
 * clear message instead of a rebalance failure later.
 */
@Component
public class TopicProvisioner {

	private static final Log logger = LogFactory.getLog(TopicProvisioner.class);

	private static final Duration TIMEOUT = Duration.ofSeconds(30);

	private final ValueGuardProperties properties;

	private final int claimsPartitions;

	private int ownerCommandsPartitions;

	private String clusterId = "";

	private String claimsTopicId = "";

	private Map<String, String> inputTopicIds = Map.of();

	public TopicProvisioner(ValueGuardProperties properties, KafkaAdmin kafkaAdmin) {
		this.properties = properties;
		try (Admin admin = Admin.create(kafkaAdmin.getConfigurationProperties())) {
			this.claimsPartitions = provision(admin);
		}
	}

	/** The id of the Kafka cluster the topics were found or created in. */
	public String clusterId() {
		return this.clusterId;
	}

	/** The claims topic's id: another when the topic has been deleted and created again. */
	public String claimsTopicId() {
		return this.claimsTopicId;
	}

	/**
	 * The ids of the topics the stages read (claims, rerouted claims, verdicts, owner commands), by name: another id
	 * when a topic has been deleted and created again.
	 */
	public Map<String, String> inputTopicIds() {
		return this.inputTopicIds;
	}

	/** Partition count of the claims topic, and so of the key stage. */
	public int claimsPartitions() {
		return this.claimsPartitions;
	}

	/** Partition count of the owner-commands topic, and so of the value stage. */
	public int ownerCommandsPartitions() {
		return this.ownerCommandsPartitions;
	}

	private int provision(Admin admin) {
		ValueGuardProperties.Topics topics = this.properties.topics();
		long maxSkew = this.properties.claims().maxClockSkew().toMillis();
		Optional<TopicDescription> existingClaims = describe(admin, topics.claims());
		existingClaims.ifPresent((existing) -> checkClockBound(admin, topics.claims(), maxSkew));
		int claimsPartitions = existingClaims.map((d) -> d.partitions().size())
			.orElseGet(() -> create(admin, topics.claims(), topics.partitions(),
					Map.of(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG, Long.toString(maxSkew))));
		this.clusterId = Objects.requireNonNullElse(await(admin.describeCluster().clusterId(), "read the cluster's id"),
				"");
		ensureCoPartitioned(admin, this.properties.evictionFeedbackTopic(), claimsPartitions,
				"evictions go back to the partition that holds the key", "in-flight verdicts");
		ensureCoPartitioned(admin, this.properties.reroutedClaimsTopic(), claimsPartitions,
				"a claim that arrived on another partition than its key's goes to its key's partition",
				"claims on their way to their key's partition");
		this.ownerCommandsPartitions = describe(admin, this.properties.ownerCommandsTopic())
			.map((d) -> d.partitions().size())
			.orElseGet(() -> create(admin, this.properties.ownerCommandsTopic(), topics.partitions(), Map.of()));
		Map<String, String> inputTopicIds = new HashMap<>();
		for (String input : List.of(topics.claims(), this.properties.reroutedClaimsTopic(),
				this.properties.evictionFeedbackTopic(), this.properties.ownerCommandsTopic())) {
			inputTopicIds.put(input, awaitDescription(admin, input).topicId().toString());
		}
		this.inputTopicIds = Map.copyOf(inputTopicIds);
		// where the stages' local state must come from (LocalStateOrigin)
		this.claimsTopicId = inputTopicIds.get(topics.claims());
		Map<String, String> bindings = new HashMap<>(this.properties.store().compaction());
		bindings.put(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT);
		ensure(admin, topics.bindings(), topics.partitions(), bindings);
		ensure(admin, topics.evictions(), topics.partitions(), Map.of());
		ensure(admin, topics.dlq(), topics.partitions(), Map.of());
		return claimsPartitions;
	}

	/**
	 * Creates an internal topic that feeds the key stage's tasks beside the claims topic, with the claims topic's
	 * partition count, or checks the count of one that exists: a mismatch stops start-up with what to do.
	 */
	private void ensureCoPartitioned(Admin admin, String topic, int claimsPartitions, String why, String holds) {
		Optional<TopicDescription> existing = describe(admin, topic);
		if (existing.isEmpty()) {
			create(admin, topic, claimsPartitions, Map.of());
			return;
		}
		int partitions = existing.get().partitions().size();
		if (partitions != claimsPartitions) {
			throw new IllegalStateException(("Topic '%s' has %d partitions but the claims topic '%s' has %d. They must "
					+ "match: %s. Delete '%s' (it holds only %s; stop every instance first) or change "
					+ "valueguard.application-id.")
				.formatted(topic, partitions, this.properties.topics().claims(), claimsPartitions, why, topic, holds));
		}
	}

	/**
	 * A claims topic that lets records further ahead of the broker's clock than {@code valueguard.claims.max-clock-skew}
	 * lets a producer whose clock runs ahead win races it should lose: one WARN naming the setting to change. Checked,
	 * not changed: the topic may be another team's.
	 */
	private void checkClockBound(Admin admin, String topic, long maxSkew) {
		ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
		try {
			Config config = await(admin.describeConfigs(Set.of(resource)).all(), "describe the configs of '" + topic + "'")
				.get(resource);
			ConfigEntry bound = (config != null) ? config.get(TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG) : null;
			long allowed = (bound != null && bound.value() != null) ? Long.parseLong(bound.value()) : Long.MAX_VALUE;
			if (allowed > maxSkew) {
				logger.warn("The claims topic '" + topic + "' accepts records up to " + allowed + " ms ahead of the "
						+ "broker's clock, more than valueguard.claims.max-clock-skew (" + maxSkew + " ms): a producer "
						+ "whose clock runs ahead wins every race until its timestamps pass. Set the topic's "
						+ TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + " to " + maxSkew + " (kafka-configs.sh "
						+ "--alter --entity-type topics --entity-name " + topic + " --add-config "
						+ TopicConfig.MESSAGE_TIMESTAMP_AFTER_MAX_MS_CONFIG + "=" + maxSkew + ")");
			}
		}
		catch (IllegalStateException | NumberFormatException ex) {
			logger.warn("Could not check how far ahead of the broker's clock the claims topic '" + topic
					+ "' accepts records (" + ex.getMessage() + "); docs/security.md says what to set");
		}
	}

	private void ensure(Admin admin, String topic, int partitions, Map<String, String> configs) {
		if (describe(admin, topic).isEmpty()) {
			create(admin, topic, partitions, configs);
		}
	}

	private Optional<TopicDescription> describe(Admin admin, String topic) {
		try {
			return Optional.of(await(admin.describeTopics(Set.of(topic)).allTopicNames(), "describe topic '" + topic + "'")
				.get(topic));
		}
		catch (UnknownTopicOrPartitionException ex) {
			return Optional.empty();
		}
	}

	private int create(Admin admin, String topic, int partitions, Map<String, String> configs) {
		ValueGuardProperties.Topics topics = this.properties.topics();
		Map<String, String> allConfigs = new HashMap<>(configs);
		allConfigs.put(TopicConfig.MIN_IN_SYNC_REPLICAS_CONFIG, Integer.toString(topics.minInsyncReplicas()));
		NewTopic newTopic = new NewTopic(topic, partitions, topics.replicationFactor()).configs(allConfigs);
		try {
			await(admin.createTopics(List.of(newTopic)).all(), "create topic '" + topic + "'");
			logger.info("Created topic '" + topic + "' with " + partitions + " partitions");
			return partitions;
		}
		catch (TopicExistsException ex) {
			// another instance, or an operator, created it first: take what they made, once its metadata shows here
			return awaitDescription(admin, topic).partitions().size();
		}
	}

	/** A topic that exists, described as soon as this broker's metadata shows it. */
	private TopicDescription awaitDescription(Admin admin, String topic) {
		long deadline = System.nanoTime() + TIMEOUT.toNanos();
		while (true) {
			Optional<TopicDescription> description = describe(admin, topic);
			if (description.isPresent()) {
				return description.get();
			}
			if (System.nanoTime() > deadline) {
				throw failure("describe topic '" + topic + "', which exists", null);
			}
			try {
				Thread.sleep(100);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw failure("describe topic '" + topic + "', which exists", ex);
			}
		}
	}

	/**
	 * Waits for an admin call. Kafka's own errors come out unwrapped, for callers that expect some of them; a timeout,
	 * an interrupt or any other failure becomes one clear start-up error.
	 */
	private static <T> T await(KafkaFuture<T> future, String action) {
		try {
			return future.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
		}
		catch (ExecutionException ex) {
			if (ex.getCause() instanceof UnknownTopicOrPartitionException
					|| ex.getCause() instanceof TopicExistsException) {
				throw (ApiException) ex.getCause();
			}
			throw failure(action, ex.getCause());
		}
		catch (TimeoutException ex) {
			throw failure(action, ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw failure(action, ex);
		}
	}

	private static IllegalStateException failure(String action, Throwable cause) {
		return new IllegalStateException("Could not " + action + " within " + TIMEOUT.toSeconds()
				+ "s: is Kafka reachable at spring.kafka.bootstrap-servers, and may this client create topics?", cause);
	}

}
