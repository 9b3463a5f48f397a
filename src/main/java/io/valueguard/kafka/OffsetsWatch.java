package io.valueguard.kafka;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * Tells why a stage stays out of RUNNING when the reason is its group's committed offsets. A task starts only once its
 * consumer has read its partitions' committed offsets, and the group coordinator holds back offsets that a transaction
 * committed until that transaction ends: a stage waits on an open transaction until the transaction coordinator aborts
 * it, and, after a broker restart, on offsets a coordinator serving a partial load never clears (docs/reliability.md).
 * From the instance both look like a stage REBALANCING for minutes; only the broker can say which partitions wait and
 * on what. Once a stage has not been RUNNING for {@code valueguard.streams.offsets-check-after}, every check asks the
 * broker, logs a WARN with the diagnosis and its remedy when it first finds partitions held back (again every
 * {@link #REPEAT} while they stay so), and publishes what it found for {@code valueguard_offsets_held_back_partitions}.
 */
@Component
public class OffsetsWatch extends StageWatcher {

	private static final Log logger = LogFactory.getLog(OffsetsWatch.class);

	/** The longest between two looks at each stage's state (the broker asked at each while one is past the threshold). */
	static final Duration CHECK_INTERVAL = Duration.ofSeconds(15);

	/** How long each admin request may take. */
	static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

	/** How often a diagnosis that stays the same is logged again. */
	static final Duration REPEAT = Duration.ofMinutes(5);

	/** What the watch knows of one stage; written by the watch's thread, read by the metrics. */
	private static final class Stage {

		volatile long runningAtNanos;

		volatile HeldBackOffsets found = HeldBackOffsets.none();

		long loggedAtNanos;

	}

	private final Duration after;

	private final LongSupplier nanoTime;

	private final Map<String, Stage> stages = new ConcurrentHashMap<>();

	/** Given by tests; otherwise one over {@link #admin}. */
	private final @Nullable OffsetsInspector inspector;

	@Autowired
	public OffsetsWatch(StreamsClients clients, KafkaAdmin kafkaAdmin, ValueGuardProperties properties) {
		this(clients, kafkaAdmin, properties.streams().offsetsCheckAfter(),
				checkInterval(properties.streams().offsetsCheckAfter()), null, System::nanoTime);
	}

	/** A quarter of the threshold, so that a diagnosis comes soon after it; between 250 ms and 15 s. */
	static Duration checkInterval(Duration after) {
		Duration quarter = after.dividedBy(4);
		Duration least = Duration.ofMillis(250);
		return (quarter.compareTo(least) < 0) ? least
				: (quarter.compareTo(CHECK_INTERVAL) > 0) ? CHECK_INTERVAL : quarter;
	}

	/** With a given inspector and clock: tests drive the checks themselves. */
	OffsetsWatch(StreamsClients clients, KafkaAdmin kafkaAdmin, Duration after, Duration checkInterval,
			@Nullable OffsetsInspector inspector, LongSupplier nanoTime) {
		super("valueguard-offsets-watch", checkInterval, clients, kafkaAdmin, true);
		this.after = after;
		this.inspector = inspector;
		this.nanoTime = nanoTime;
	}

	/** What the last check found for the stage: nothing held back while it runs or before it was looked at. */
	public HeldBackOffsets heldBack(String applicationId) {
		Stage stage = this.stages.get(applicationId);
		return (stage != null) ? stage.found : HeldBackOffsets.none();
	}

	/** @return whether the stage has been out of RUNNING past the threshold */
	@Override
	boolean check(String applicationId, @Nullable KafkaStreams streams) {
		long now = this.nanoTime.getAsLong();
		Stage stage = this.stages.computeIfAbsent(applicationId, (id) -> {
			Stage created = new Stage();
			created.runningAtNanos = now;
			return created;
		});
		if (streams != null && streams.state() == KafkaStreams.State.RUNNING) {
			stage.runningAtNanos = now;
			cleared(applicationId, stage, "the stage is RUNNING");
			return false;
		}
		Duration notRunning = Duration.ofNanos(now - stage.runningAtNanos);
		if (streams == null || notRunning.compareTo(this.after) < 0) {
			return false;
		}
		// only a stage that rebalances waits for its offsets; one that failed or stops is the supervisor's
		Set<TopicPartition> assigned = (streams.state() == KafkaStreams.State.REBALANCING) ? assigned(streams)
				: Set.of();
		if (assigned.isEmpty()) {
			cleared(applicationId, stage, "no task waits here");
			return true;
		}
		// a transaction that held the offsets back through the stall was open when it began; the last look that found
		// the stage RUNNING can be late by an interval, or more on a starved machine, so half the stall is the bar: the
		// same group's running instances' transactions last about a commit interval, and at most their timeout
		HeldBackOffsets found;
		try {
			found = inspector().inspect(applicationId, assigned, notRunning.dividedBy(2));
		}
		catch (Exception ex) {
			logger.debug("Could not ask the broker about the committed offsets of " + applicationId, ex);
			return true;
		}
		if (!found.any()) {
			cleared(applicationId, stage, "the broker holds none back");
			return true;
		}
		HeldBackOffsets before = stage.found;
		stage.found = found;
		boolean changed = !found.partitions().equals(before.partitions())
				|| found.neverCleared() != before.neverCleared();
		if (changed || now - stage.loggedAtNanos >= REPEAT.toNanos()) {
			stage.loggedAtNanos = now;
			logger.warn("Stage " + applicationId + " has not been RUNNING for " + notRunning.toSeconds() + " s: "
					+ found.describe());
		}
		return true;
	}

	private void cleared(String applicationId, Stage stage, String why) {
		HeldBackOffsets before = stage.found;
		if (before.any()) {
			stage.found = HeldBackOffsets.none();
			logger.info("Stage " + applicationId + ": the committed offsets of " + before.partitions()
					+ " are no longer held back (" + why + ")");
		}
	}

	/**
	 * The input partitions of the active tasks the last assignment gave this instance: the threads' own metadata is
	 * renewed only once they run, the assignment's as soon as it arrives.
	 */
	private Set<TopicPartition> assigned(KafkaStreams streams) {
		return streams.metadataForAllStreamsClients()
			.stream()
			.filter((client) -> client.hostInfo().equals(this.clients.self()))
			.flatMap((client) -> client.topicPartitions().stream())
			.collect(Collectors.toSet());
	}

	private OffsetsInspector inspector() {
		if (this.inspector != null) {
			return this.inspector;
		}
		// opened while a stage stays out of RUNNING, closed once none does
		return new AdminOffsetsInspector(this.admin.get(), REQUEST_TIMEOUT.toMillis());
	}

}
