package io.valueguard.config;

import java.time.Duration;
import java.util.Map;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Pattern;
import org.apache.kafka.common.config.TopicConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * Settings that ValueGuard owns, under {@code valueguard.*}. Every one is listed in the README's configuration table.
 *
 * @param applicationId prefix of both stages' Kafka Streams application ids and of the internal topics
 * @param topics the topics ValueGuard reads and writes, and how it creates them
 * @param limits what makes a claim valid
 * @param streams how the Kafka Streams clients behave
 * @param publisher how the REST API's producer writes claims
 * @param claims how the claims topic's records carry the claimed value
 * @param store where both stages keep their stores
 * @param rocksdb how RocksDB stores share and bound their native memory
 * @param instanceName this instance's stable name, the static group membership ({@code group.instance.id}) of its
 * streams clients, so that a restarted instance gets its partitions back at once; unset, it is derived from the
 * advertised host and port, which must be unique and stable anyway; two live instances must never share one
 * @param policy {@code latest-wins} (the default): the greatest claim by time takes a value from its holder;
 * {@code first-wins}: a held value is refused to every other key until its holder releases it. One per deployment:
 * every instance must run with the same
 * @param retention unset (the default): every entry is kept for ever; a duration: an entry that holds nothing is
 * forgotten once it is that far behind its task's stream time, and claims that old are refused (docs/design.md,
 * "Retention")
 * @param advertisedHost the host other instances reach this one at, for forwarded lookups (Kafka Streams'
 * {@code application.server}); in Kubernetes, the pod's stable DNS name
 * @param advertisedPort the port other instances reach this one at; unset, {@code valueguard.query.internal-port} if
 * set, else {@code server.port}
 * @param stateDir where both stages keep their RocksDB stores (Kafka Streams' {@code state.dir}); unset, a directory
 * under {@code java.io.tmpdir} named for the port. On a persistent volume, a restart needs no restore
 * @param standbyReplicas warm copies of each store partition on other instances (Kafka Streams'
 * {@code num.standby.replicas}), which take over at once when an instance fails and answer {@code ?maxLag=} lookups
 * @param metrics what the streams clients record, and how often their metrics are read
 */
@ConfigurationProperties("valueguard")
@Validated
public record ValueGuardProperties(@DefaultValue("valueguard") @NotBlank String applicationId,
		@DefaultValue @Valid Topics topics, @DefaultValue @Valid Limits limits, @DefaultValue @Valid Streams streams,
		@DefaultValue @Valid Publisher publisher, @DefaultValue @Valid Claims claims, @DefaultValue @Valid Store store,
		@DefaultValue @Valid RocksDb rocksdb, @Nullable @Pattern(regexp = "[A-Za-z0-9._-]{1,200}",
				message = "must be 1 to 200 letters, digits, '.', '_' or '-'") String instanceName,
		@DefaultValue("latest-wins") ClaimPolicy policy, @Nullable Duration retention,
		@DefaultValue("localhost") @Pattern(regexp = "[^\\s/]+", message = "must be a host name or address")
		String advertisedHost, @Nullable @Min(1) @Max(65535) Integer advertisedPort, @Nullable String stateDir,
		@DefaultValue("1") @Min(0) @Max(10) int standbyReplicas, @DefaultValue @Valid Metrics metrics) {

	public ValueGuardProperties {
		if (retention != null && (retention.isNegative() || retention.isZero())) {
			throw new IllegalArgumentException("valueguard.retention must be positive, not " + retention);
		}
	}

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
	 * Internal topic of claims records that arrived on another partition than their key's, each written to its
	 * key's partition (Kafka's default partitioner); partitioned like the claims.
	 */
	public String reroutedClaimsTopic() {
		return this.applicationId + "-rerouted-claims";
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
	 * @param recordingLevel Kafka Streams' {@code metrics.recording.level}: {@code INFO} (everything the dashboard and
	 * alerts need), {@code DEBUG} (adds RocksDB statistics, at a cost: docs/benchmarks.md) or {@code TRACE}
	 * @param refreshInterval how often the streams clients' metrics are read into Micrometer (new partitions, new
	 * threads)
	 */
	public record Metrics(
			@DefaultValue("INFO") @Pattern(regexp = "INFO|DEBUG|TRACE",
					message = "must be INFO, DEBUG or TRACE") String recordingLevel,
			@DefaultValue("10s") Duration refreshInterval) {

	}

	/**
	 * @param leaveGroupOnClose leave the consumer group when closing, so that the partitions move to the other
	 * instances at once instead of after the session timeout
	 * @param closeTimeout how long closing the streams may take on shutdown
	 * @param maxThreadReplacements how many dead stream threads a client replaces within
	 * {@code thread-replacement-window}; one more, and the whole client is restarted instead
	 * @param threadReplacementWindow the window that {@code max-thread-replacements} counts in
	 * @param restartBackoff the pause before restarting a client that failed (ERROR), doubled on each failed restart;
	 * a client fenced from its group restarts at once, unless it was fenced within the last minute too
	 * @param maxRestartBackoff the longest pause between restarts
	 * @param maxRestarts how many restarts in a row may fail (the client reaches ERROR again before RUNNING)
	 * before liveness goes DOWN and the platform's restart is left as the last resort
	 * @param promptCommitInterval how long after a stage's last commit of any kind began it may ask for one out of
	 * turn (for a claim someone waits for, an eviction, a first-wins ruling); unset, half the commit interval
	 * ({@code commit.interval.ms}), so that a stage commits at most about twice as often as that says. Shorter
	 * answers synchronous claims sooner when they follow each other closely, at the price of more transactions
	 * (docs/benchmarks.md, "Prompt commits counted from any commit")
	 * @param offsetsCheckAfter how long a stage may stay out of RUNNING before this instance asks the broker whether
	 * the group coordinator holds back its partitions' committed offsets, and logs why and what to do
	 * @param fenceDepartedProducers fence the transactional producers of instances that left a stage's group with a
	 * transaction open (a crash), so that the offsets and records it holds back are released at once instead of at its
	 * transaction timeout and the broker's next check for timed-out transactions (docs/reliability.md, "A crashed
	 * instance's open transaction")
	 */
	public record Streams(@DefaultValue("true") boolean leaveGroupOnClose,
			@DefaultValue("30s") Duration closeTimeout, @DefaultValue("10") @Min(0) int maxThreadReplacements,
			@DefaultValue("10m") Duration threadReplacementWindow, @DefaultValue("1s") Duration restartBackoff,
			@DefaultValue("1m") Duration maxRestartBackoff, @DefaultValue("5") @Min(0) int maxRestarts,
			@Nullable Duration promptCommitInterval, @DefaultValue("1m") Duration offsetsCheckAfter,
			@DefaultValue("true") boolean fenceDepartedProducers) {

		public Streams {
			if (promptCommitInterval != null && (promptCommitInterval.isNegative() || promptCommitInterval.isZero())) {
				throw new IllegalArgumentException("valueguard.streams.prompt-commit-interval must be positive, not "
						+ promptCommitInterval);
			}
			if (offsetsCheckAfter.isNegative()) {
				throw new IllegalArgumentException("valueguard.streams.offsets-check-after must not be negative, not "
						+ offsetsCheckAfter);
			}
		}

	}

	/**
	 * Settings of the REST API's producer alone; the streams clients keep Kafka Streams' own.
	 * @param metadataWait how long a write waits for topic metadata or buffer space ({@code max.block.ms})
	 * @param requestTimeout how long the producer waits for one broker response ({@code request.timeout.ms})
	 * @param deliveryTimeout how long a record may take to be acknowledged, retries included
	 * ({@code delivery.timeout.ms}): a write that is not acknowledged within it answers 503 and never lands later
	 */
	public record Publisher(@DefaultValue("5s") Duration metadataWait, @DefaultValue("5s") Duration requestTimeout,
			@DefaultValue("10s") Duration deliveryTimeout) {

	}

	/**
	 * @param format {@code text} (the default): the record value is the claimed value; {@code json}: the record value
	 * is a JSON document and the claimed value is at {@code value-pointer}
	 * @param valuePointer with {@code json}, the RFC 6901 JSON Pointer to the claimed value, such as {@code /email}
	 * @param maxClockSkew how far ahead of the broker's clock a claim's timestamp may be: ValueGuard creates the claims
	 * topic with it as {@code message.timestamp.after.max.ms}, so that the broker refuses claims from a producer whose
	 * clock runs ahead (docs/design.md, "Clocks")
	 */
	public record Claims(@DefaultValue("text") ClaimEncoding format, @DefaultValue("") String valuePointer,
			@DefaultValue("1m") Duration maxClockSkew) {

		public Claims {
			if (maxClockSkew.isNegative() || maxClockSkew.isZero()) {
				throw new IllegalArgumentException("valueguard.claims.max-clock-skew must be positive, not "
						+ maxClockSkew);
			}
		}

	}

	/**
	 * @param type {@code rocksdb} (the default) or {@code in-memory}, for both stages' stores
	 * @param recentEntries how many entries each stage remembers, decoded on the heap, of those it read or wrote
	 * lately, so that it reads them again without its store (about 200 bytes each); 0 turns that off
	 * @param maxCompactionLag {@code max.compaction.lag.ms} of the changelogs and the bindings topic that ValueGuard
	 * creates: the longest a superseded or deleted record stays before compaction removes it
	 * @param deleteRetention {@code delete.retention.ms} of the same topics: how long a tombstone stays after
	 * compaction. With {@code max-compaction-lag}, the bound on how long an erased key's name stays in them
	 * (docs/design.md, "Erasure")
	 */
	public record Store(@DefaultValue("rocksdb") StoreType type, @DefaultValue("100000") @Min(0) int recentEntries,
			@DefaultValue("1d") Duration maxCompactionLag, @DefaultValue("1d") Duration deleteRetention) {

		public Store {
			if (maxCompactionLag.isNegative() || maxCompactionLag.isZero() || deleteRetention.isNegative()) {
				throw new IllegalArgumentException("valueguard.store.max-compaction-lag must be positive and "
						+ "valueguard.store.delete-retention not negative, not " + maxCompactionLag + " and "
						+ deleteRetention);
			}
		}

		/** The settings of a compacted topic that bound how long an erased key's name stays in it. */
		public Map<String, String> compaction() {
			return Map.of(TopicConfig.MAX_COMPACTION_LAG_MS_CONFIG, Long.toString(this.maxCompactionLag.toMillis()),
					TopicConfig.DELETE_RETENTION_MS_CONFIG, Long.toString(this.deleteRetention.toMillis()));
		}

	}

	/**
	 * One block cache and one write buffer manager shared by every RocksDB store of the process, so that its native
	 * memory has a ceiling however many partitions it holds.
	 * @param blockCacheSize the shared block cache, which also holds the index and filter blocks and the memtables:
	 * the ceiling of RocksDB's memory in the process
	 * @param writeBufferBudget the share of the cache that memtables may take
	 * @param bloomFilterBitsPerKey bits per key of the Bloom filters that spare point lookups a disk read; 0: none
	 * @param partitionedFilters index and filter blocks in small partitions: a lookup that misses the cache reads one
	 * partition of a file's index and filter instead of the whole of them, so that a keyspace whose index and filters
	 * outgrow the cache does not fall off a cliff; costs about 0.8 µs more per read that reaches a file (docs/scaling.md)
	 */
	public record RocksDb(@DefaultValue("64MB") DataSize blockCacheSize, @DefaultValue("16MB") DataSize writeBufferBudget,
			@DefaultValue("10") @Min(0) @Max(64) int bloomFilterBitsPerKey,
			@DefaultValue("false") boolean partitionedFilters) {

	}

	/**
	 * @param maxKeyBytes longest valid key, in UTF-8 bytes
	 * @param maxValueBytes longest valid value, in UTF-8 bytes
	 * @param maxRequestBytes the largest HTTP request body accepted; a larger one is refused with 413 before it is
	 * read whole
	 */
	public record Limits(@DefaultValue("1024") @Min(1) @Max(1_000_000) int maxKeyBytes,
			@DefaultValue("1024") @Min(1) @Max(1_000_000) int maxValueBytes,
			@DefaultValue("1MB") DataSize maxRequestBytes) {

		public Limits {
			if (maxRequestBytes.toBytes() < 1 || maxRequestBytes.toBytes() > Integer.MAX_VALUE) {
				throw new IllegalArgumentException("valueguard.limits.max-request-bytes must be between 1B and 2GB, not "
						+ maxRequestBytes);
			}
		}

	}

}
