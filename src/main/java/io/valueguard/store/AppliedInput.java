package io.valueguard.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jspecify.annotations.Nullable;

/**
 * The offset of the last input record a task applied on each of its input partitions, written into the task's state
 * when it commits, so that input Kafka hands the task again is passed over instead of applied twice.
 * <p>
 * Under exactly-once the marks commit with the input offsets, so a record normally arrives above its partition's
 * mark, after a crash too. It arrives at or below it when the group's committed offsets went back while the state did
 * not: they expired (the service down longer than the broker's {@code offsets.retention.minutes}), an operator reset
 * them, or the broker's group coordinator served them from a partial load (docs/reliability.md). Applied again, an
 * old claim would count at its key's later clock and could take a value from a key that won it fairly. Under
 * at-least-once the marks are off.
 */
public final class AppliedInput extends PreCommitStore {

	private static final Log logger = LogFactory.getLog(AppliedInput.class);

	/**
	 * The streams configuration that names the ids of the topics the stages read ({@code name=id,...}, set by
	 * kafka/LocalStateOrigin): a mark belongs to one incarnation of its topic, so a topic deleted and created again
	 * starts without marks, though its old marks come back with the changelog.
	 */
	public static final String INPUT_TOPIC_IDS = "valueguard.input-topic-ids";

	/** A task's input partitions: the claims, rerouted claims and verdicts of a key stage, one for a value stage. */
	private final List<Mark> marks = new ArrayList<>(3);

	private @Nullable KeyValueStore<String, Long> store;

	/** Under at-least-once the marks could not commit with the offsets: off. */
	private boolean exactlyOnce;

	private Runnable passedOver = () -> {
	};

	private Map<String, String> topicIds = Map.of();

	private AppliedInput(String name) {
		super(name);
	}

	/** The store that keeps the marks, with its changelog, named {@code name}. */
	public static StoreBuilder<KeyValueStore<String, Long>> marks(String name, Map<String, String> changelog) {
		return Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name), Serdes.String(), Serdes.Long())
			.withLoggingEnabled(changelog);
	}

	/** The store in front of {@link #marks}, named {@code name}, that holds a task's marks until it commits. */
	public static StoreBuilder<AppliedInput> builder(String name) {
		return builder(name, AppliedInput::new);
	}

	/**
	 * Connects to the store that keeps the marks and to the processor that applies the input; called from that
	 * processor's {@code init}, once the store is restored. {@code passedOver} is told of each record passed over.
	 */
	public void connect(ProcessorContext<?, ?> context, KeyValueStore<String, Long> store, Runnable passedOver) {
		connectTo(context);
		this.store = store;
		this.passedOver = passedOver;
		// at-least-once replays what a crash interrupted anyway, and its stores' writes and these marks reach the
		// changelogs in no set order, so a mark could name records whose writes never got there
		this.exactlyOnce = exactlyOnce(context.appConfigs().get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));
		this.topicIds = topicIds(context.appConfigs().get(INPUT_TOPIC_IDS));
		// a store that Kafka Streams reuses for a new task: its marks are read again from the restored store
		this.marks.clear();
	}

	/**
	 * True if the record {@code source} names lies above its partition's mark, which then moves to it: the caller
	 * applies the record. False if the task applied it before: the caller passes it over. A record without a source
	 * (a punctuation's) is never held back.
	 */
	public boolean firstTime(Optional<RecordMetadata> source) {
		if (!this.exactlyOnce || source.isEmpty() || source.get().offset() < 0) {
			return true;
		}
		RecordMetadata record = source.get();
		Mark mark = markOf(record.topic(), record.partition());
		long offset = record.offset();
		if (offset > mark.applied) {
			mark.ended(offset);
			mark.applied = offset;
			mark.unwritten = true;
			return true;
		}
		mark.passOver(offset);
		this.passedOver.run();
		return false;
	}

	private static boolean exactlyOnce(@Nullable Object guarantee) {
		// Kafka Streams' default is at-least-once; ValueGuard's is exactly_once_v2
		return guarantee != null && !StreamsConfig.AT_LEAST_ONCE.equals(guarantee.toString());
	}

	private static Map<String, String> topicIds(@Nullable Object configured) {
		Map<String, String> ids = new HashMap<>();
		if (configured != null) {
			for (String entry : configured.toString().split(",")) {
				int equals = entry.indexOf('=');
				if (equals > 0) {
					ids.put(entry.substring(0, equals), entry.substring(equals + 1));
				}
			}
		}
		return ids;
	}

	private Mark markOf(String topic, int partition) {
		for (Mark mark : this.marks) {
			if (mark.partition == partition && mark.topic.equals(topic)) {
				return mark;
			}
		}
		Mark mark = new Mark(topic, partition, this.topicIds.get(topic));
		Long applied = this.store.get(mark.key);
		mark.applied = (applied != null) ? applied : -1;
		this.marks.add(mark);
		return mark;
	}

	@Override
	public void flushCache() {
		for (Mark mark : this.marks) {
			if (mark.unwritten) {
				this.store.put(mark.key, mark.applied);
				mark.unwritten = false;
			}
		}
	}

	@Override
	public void clearCache() {
		// the task failed: its transaction aborts, its store goes back to its last commit, and so do the marks
		this.marks.clear();
	}

	/** One input partition's mark, and the run of records passed over below it that has not ended yet. */
	private static final class Mark {

		private final String topic;

		private final int partition;

		private final String name;

		private final String key;

		private long applied;

		private boolean unwritten;

		private long passedOver;

		private long firstPassedOver;

		private Mark(String topic, int partition, @Nullable String topicId) {
			this.topic = topic;
			this.partition = partition;
			this.name = topic + "-" + partition;
			// the store's key: the topic's incarnation too, where the configuration names it
			this.key = this.name + ((topicId != null) ? "@" + topicId : "");
		}

		private void passOver(long offset) {
			if (this.passedOver == 0) {
				this.firstPassedOver = offset;
				logger.warn("Kafka hands this task input it applied before: " + this.name + " at offset " + offset
						+ ", applied up to " + this.applied + ". The group's committed offset went back (expired, "
						+ "reset, or served by the group coordinator from a partial load: docs/reliability.md); the "
						+ "records up to " + this.applied + " are passed over, not applied twice");
			}
			this.passedOver++;
		}

		private void ended(long offset) {
			if (this.passedOver > 0) {
				logger.warn("Passed over " + this.passedOver + " records of " + this.name + " applied before (offsets "
						+ this.firstPassedOver + " to " + this.applied + "); applying again from offset " + offset);
				this.passedOver = 0;
			}
		}

	}

}
