package io.valueguard.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A stream task's messages to the other stage, grouped by the partition they go to, so that one record carries many
 * of them: Kafka's cost is per record, and most of a claim's records were these messages (docs/design.md, "Commands
 * and verdicts travel in batches"). A group goes out when it reaches its byte budget, on a wall-clock schedule (so
 * that at-least-once, which commits every 30 s, does not hold messages back; scheduled only while the outbox holds
 * messages, since a punctuation makes its task commit), and when the task commits.
 * <p>
 * The last is what keeps exactly-once: the input records that caused the messages must not commit without them, so
 * the outbox is a {@link PreCommitStore} and sends what it holds through the processor that filled it. A task that
 * fails drops its outbox with its transaction, and replays the input that filled it.
 */
public final class Outbox<E> extends PreCommitStore {

	/** Sends one group, through the processor that filled it. */
	@FunctionalInterface
	public interface Sender<E> {

		/**
		 * @param timestamp the latest timestamp of the group's messages: its record's timestamp
		 * @param waitedFor whether someone waits for the outcome of one of the messages
		 */
		void send(int partition, List<E> entries, long timestamp, boolean waitedFor);

	}

	/**
	 * How many bytes of messages (an upper bound of their encoding) make a group go out: well below Kafka's default
	 * request size of 1 MiB, and large enough that a group seldom goes out before the task commits (every 100 ms
	 * under exactly-once).
	 */
	static final int BUDGET_BYTES = 256 * 1024;

	/** The longest a message waits when the task does not commit sooner: as long as Kafka Streams' producer lingers. */
	static final Duration LINGER = Duration.ofMillis(100);

	/** A new outbox per task, as Kafka Streams builds every store. */
	public static <E> StoreBuilder<Outbox<E>> builder(String name) {
		return builder(name, Outbox::new);
	}

	@SuppressWarnings("unchecked")
	private Group<E>[] groups = new Group[0];

	private @Nullable Sender<E> sender;

	private @Nullable Runnable beforeCommit;

	/** The scheduled send, only while the outbox holds messages. */
	private final OnDemandPunctuation linger = new OnDemandPunctuation(LINGER, (now) -> sendAllWhileKafkaAnswers());

	private Outbox(String name) {
		super(name);
	}

	/**
	 * Connects the outbox to the processor that fills it; called from that processor's {@code init}, while Kafka
	 * Streams has it as the current node.
	 */
	public void connect(ProcessorContext<?, ?> context, Sender<E> sender) {
		connectTo(context);
		this.sender = sender;
		// a store that Kafka Streams reuses for a new task: what the last task scheduled went with it
		this.linger.cancel();
	}

	/**
	 * Runs {@code listener} whenever the task is about to commit, whether the outbox holds anything or not: how a
	 * processor learns that a commit it asked for has begun ({@link CommitThrottle#committing}).
	 */
	public void beforeEachCommit(Runnable listener) {
		this.beforeCommit = listener;
	}

	/** The scheduled send, which keeps the messages when Kafka does not answer in time. */
	void sendAllWhileKafkaAnswers() {
		whileKafkaAnswers(this::sendAll, () -> pending() + " messages in outbox '" + name() + "'");
	}

	private int pending() {
		int pending = 0;
		for (Group<E> group : this.groups) {
			pending += (group != null) ? group.entries.size() : 0;
		}
		return pending;
	}

	/**
	 * Adds a message for {@code partition}; sends that partition's group once it holds {@link #BUDGET_BYTES}.
	 * @param timestamp the message's timestamp; a group's record carries the latest of them
	 * @param waitedFor whether someone waits for the message's outcome; the group's record says so if any does
	 */
	public void add(int partition, E entry, int sizeBytes, long timestamp, boolean waitedFor) {
		if (partition >= this.groups.length) {
			this.groups = Arrays.copyOf(this.groups, partition + 1);
		}
		Group<E> group = this.groups[partition];
		if (group == null) {
			group = new Group<>();
			this.groups[partition] = group;
		}
		group.entries.add(entry);
		group.bytes += sizeBytes;
		group.latest = Math.max(group.latest, timestamp);
		group.waitedFor |= waitedFor;
		this.linger.schedule(context());
		if (group.bytes >= BUDGET_BYTES) {
			send(partition, group);
		}
	}

	/** Sends every group that holds a message; from inside processing or a punctuation. */
	public void sendAll() {
		for (int partition = 0; partition < this.groups.length; partition++) {
			Group<E> group = this.groups[partition];
			if (group != null && !group.entries.isEmpty()) {
				send(partition, group);
			}
		}
		this.linger.cancel();
	}

	private void send(int partition, Group<E> group) {
		List<E> entries = group.entries;
		int bytes = group.bytes;
		long latest = group.latest;
		boolean waitedFor = group.waitedFor;
		// the next group is likely about as large: no growing it from ten entries again
		group.entries = new ArrayList<>(entries.size());
		group.bytes = 0;
		group.latest = Long.MIN_VALUE;
		group.waitedFor = false;
		try {
			this.sender.send(partition, entries, latest, waitedFor);
		}
		catch (RuntimeException ex) {
			// not sent (a send fails before the record is appended): the group keeps its messages, in order
			entries.addAll(group.entries);
			group.entries = entries;
			group.bytes += bytes;
			group.latest = Math.max(group.latest, latest);
			group.waitedFor |= waitedFor;
			throw ex;
		}
	}

	@Override
	public void flushCache() {
		if (this.beforeCommit != null) {
			this.beforeCommit.run();
		}
		if (connected() && pending() > 0) {
			actAsProcessor(this::sendAll);
		}
	}

	@Override
	public void clearCache() {
		this.groups = Arrays.copyOf(this.groups, 0);
		this.linger.cancel();
	}

	private static final class Group<E> {

		private List<E> entries = new ArrayList<>();

		private int bytes;

		private long latest = Long.MIN_VALUE;

		private boolean waitedFor;

	}

}
