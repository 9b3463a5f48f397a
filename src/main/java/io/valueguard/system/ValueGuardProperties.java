package io.valueguard.system;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Settings that ValueGuard owns, under {@code valueguard.*}. Every one is listed in the README's configuration table.
 *
 * @param applicationId prefix of both stages' Kafka Streams application ids and of the internal topics
 * @param topics the topics ValueGuard reads and writes, and how it creates them
 * @param limits what makes a claim valid
 * @param streams how the Kafka Streams clients behave
 */
@ConfigurationProperties("valueguard")
@Validated
public record ValueGuardProperties(@DefaultValue("valueguard") @NotBlank String applicationId,
		@DefaultValue @Valid Topics topics, @DefaultValue @Valid Limits limits, @DefaultValue @Valid Streams streams) {

	/** Application id of the key stage (claims partitioned by key, store {@code bindings}). */
	public String keyStageApplicationId() {
		return this.applicationId + "-keys";
	}

	/** Application id of the value stage (commands partitioned by value, store {@code owners}). */
	public String valueStageApplicationId() {
		return this.applicationId + "-values";
	}

	/** Internal topic of claims and releases, keyed by value. */
	public String ownerCommandsTopic() {
		return this.applicationId + "-owner-commands";
	}

	/** Internal topic of eviction verdicts, keyed by key and partitioned like the claims. */
	public String evictionFeedbackTopic() {
		return this.applicationId + "-eviction-feedback";
	}

	/**
	 * @param claims input, keyed by owner key; a null value gives up what the key holds
	 * @param bindings output, compacted: key to the value it holds now
	 * @param evictions output: one JSON event per eviction, keyed by the evicted key
	 * @param dlq input records that are not valid claims, with the reason in headers
	 * @param partitions partitions of the topics ValueGuard creates (existing topics keep theirs)
	 * @param replicationFactor replication factor of the topics ValueGuard creates, changelogs included
	 * @param minInsyncReplicas {@code min.insync.replicas} of the topics ValueGuard creates, changelogs included
	 */
	public record Topics(@DefaultValue("valueguard.claims") @NotBlank String claims,
			@DefaultValue("valueguard.bindings") @NotBlank String bindings,
			@DefaultValue("valueguard.evictions") @NotBlank String evictions,
			@DefaultValue("valueguard.claims.dlq") @NotBlank String dlq,
			@DefaultValue("6") @Min(1) @Max(10_000) int partitions,
			@DefaultValue("1") @Min(1) @Max(32) short replicationFactor,
			@DefaultValue("1") @Min(1) @Max(32) int minInsyncReplicas) {

	}

	/**
	 * @param maxKeyBytes longest valid key, in UTF-8 bytes
	 * @param maxValueBytes longest valid value, in UTF-8 bytes
	 */
	/**
	 * @param leaveGroupOnClose leave the consumer group when closing, so that a restarted instance gets its tasks
	 * back at once instead of after the session timeout
	 * @param closeTimeout how long closing the streams may take on shutdown
	 */
	public record Streams(@DefaultValue("true") boolean leaveGroupOnClose,
			@DefaultValue("30s") java.time.Duration closeTimeout) {

	}

	public record Limits(@DefaultValue("1024") @Min(1) @Max(1_000_000) int maxKeyBytes,
			@DefaultValue("1024") @Min(1) @Max(1_000_000) int maxValueBytes) {

	}

}
