package io.valueguard.system;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorNode;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;
import org.jspecify.annotations.Nullable;

/**
 * A stream task's messages to the other stage, grouped by the partition they go to, so that one record carries many
 * of them: Kafka's cost is per record, and most of a claim's records were these messages (docs/design.md, "Commands
 * and verdicts travel in batches"). A group goes out when it reaches its byte budget, on a wall-clock schedule (so
 * that at-least-once, which commits every 30 s, does not hold messages back), and when the task commits.
 * <p>
 * The last is what keeps exactly-once: the input records that caused the messages must not commit without them.
 * Kafka Streams has no public hook for "before this task commits"; it flushes every store cache then, before it
 * flushes the producer and commits the transaction, which is how a cached KTable's updates reach its topic. So the
 * outbox is a store (in memory, no changelog) that presents itself as a cache, and sends what it holds through the
 * processor that filled it, as Kafka's own cache flush listeners do. Those two internal interfaces are the price of
 * the hook; the topology tests (whose driver commits after every record) and the broker-backed tests fail without it.
 * A task that fails drops its outbox with its transaction, and replays the input that filled it.
 */
public final class Outbox<E> implements StateStore, CachedStateStore<Object, Object> {

	private static final Log logger = LogFactory.getLog(Outbox.class);

	/** Sends one group, through the processor that filled it. */
	@FunctionalInterface
	public interface Sender<E> {

		void send(int partition, List<E> entries);

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
		return new Builder<>(name);
	}

	private final String name;

	@SuppressWarnings("unchecked")
	private Group<E>[] groups = new Group[0];

	private @Nullable InternalProcessorContext<?, ?> context;

	private @Nullable ProcessorNode<?, ?, ?, ?> node;

	private @Nullable Sender<E> sender;

	private boolean open;

	private Outbox(String name) {
		this.name = name;
	}

	/**
	 * Connects the outbox to the processor that fills it; called from that processor's {@code init}, while Kafka
	 * Streams has it as the current node.
	 */
	public void connect(ProcessorContext<?, ?> context, Sender<E> sender) {
		this.context = (InternalProcessorContext<?, ?>) context;
		this.node = this.context.currentNode();
		this.sender = sender;
		context.schedule(LINGER, PunctuationType.WALL_CLOCK_TIME, (now) -> sendAllWhileKafkaAnswers());
	}

	/**
	 * The scheduled send: when Kafka does not answer in time (the whole cluster gone longer than the producer waits),
	 * the messages stay for the next attempt, at the latest the commit, which cannot succeed without Kafka either.
	 */
	void sendAllWhileKafkaAnswers() {
		try {
			sendAll();
		}
		catch (RuntimeException ex) {
			if (!causedByTimeout(ex)) {
				throw ex;
			}
			logger.warn("Kafka did not answer in time; " + pending() + " messages in outbox '" + this.name
					+ "' wait for the next attempt: " + ex.getMessage());
		}
	}

	private static boolean causedByTimeout(Throwable ex) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (cause instanceof TimeoutException) {
				return true;
			}
		}
		return false;
	}

	private int pending() {
		int pending = 0;
		for (Group<E> group : this.groups) {
			pending += (group != null) ? group.entries.size() : 0;
		}
		return pending;
	}

	/** Adds a message for {@code partition}; sends that partition's group once it holds {@link #BUDGET_BYTES}. */
	public void add(int partition, E entry, int sizeBytes) {
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
	}

	private void send(int partition, Group<E> group) {
		List<E> entries = group.entries;
		int bytes = group.bytes;
		// the next group is likely about as large: no growing it from ten entries again
		group.entries = new ArrayList<>(entries.size());
		group.bytes = 0;
		try {
			this.sender.send(partition, entries);
		}
		catch (RuntimeException ex) {
			// not sent (a send fails before the record is appended): the group keeps its messages, in order
			entries.addAll(group.entries);
			group.entries = entries;
			group.bytes += bytes;
			throw ex;
		}
	}

	/** The task is about to commit: everything goes out now, into the transaction that commits its causes. */
	@Override
	public void flushCache() {
		if (this.context == null || pending() == 0) {
			return;
		}
		ProcessorNode<?, ?, ?, ?> previousNode = this.context.currentNode();
		ProcessorRecordContext previousRecord = this.context.recordContext();
		// what a punctuation sees: no input record, forwarding from the processor that filled the outbox
		this.context.setCurrentNode(this.node);
		this.context.setRecordContext(new ProcessorRecordContext(this.context.currentSystemTimeMs(), -1, -1, null,
				new RecordHeaders()));
		try {
			sendAll();
		}
		finally {
			this.context.setCurrentNode(previousNode);
			this.context.setRecordContext(previousRecord);
		}
	}

	/** The task failed: its transaction aborts, and replaying its input fills the outbox again. */
	@Override
	public void clearCache() {
		this.groups = Arrays.copyOf(this.groups, 0);
	}

	@Override
	public boolean setFlushListener(CacheFlushListener<Object, Object> listener, boolean sendOldValues) {
		return false;
	}

	@Override
	public String name() {
		return this.name;
	}

	@Override
	public void init(StateStoreContext context, StateStore root) {
		clearCache();
		// nothing to restore: the outbox never outlives a transaction
		context.register(root, (key, value) -> {
		});
		this.open = true;
	}

	/** Called after a commit, when everything has gone out already. */
	@Override
	public void flush() {
	}

	@Override
	public void close() {
		clearCache();
		this.open = false;
	}

	@Override
	public boolean persistent() {
		return false;
	}

	@Override
	public boolean isOpen() {
		return this.open;
	}

	private static final class Group<E> {

		private List<E> entries = new ArrayList<>();

		private int bytes;

	}

	private record Builder<E>(String name) implements StoreBuilder<Outbox<E>> {

		@Override
		public Outbox<E> build() {
			return new Outbox<>(this.name);
		}

		@Override
		public StoreBuilder<Outbox<E>> withCachingEnabled() {
			return this;
		}

		@Override
		public StoreBuilder<Outbox<E>> withCachingDisabled() {
			return this;
		}

		@Override
		public StoreBuilder<Outbox<E>> withLoggingEnabled(Map<String, String> config) {
			throw new UnsupportedOperationException("An outbox holds messages only until its task commits");
		}

		@Override
		public StoreBuilder<Outbox<E>> withLoggingDisabled() {
			return this;
		}

		@Override
		public Map<String, String> logConfig() {
			return Map.of();
		}

		@Override
		public boolean loggingEnabled() {
			return false;
		}

	}

}
