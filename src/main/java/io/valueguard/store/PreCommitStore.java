package io.valueguard.store;

import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
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
 * A stream task's work that must go out before the task commits, held in a store (in memory, no changelog) that
 * presents itself as a cache. Kafka Streams has no public hook for "before this task commits"; it flushes every store
 * cache then, before it flushes the producer and commits the transaction, which is how a cached KTable's updates
 * reach their topic. {@link #flushCache} is that moment, and {@link #clearCache} is the task failing, its transaction
 * aborting and its input replaying. Those two internal interfaces are the price of the hook; the topology tests (whose
 * driver commits after every record) and the broker-backed tests fail without it.
 */
public abstract class PreCommitStore implements StateStore, CachedStateStore<Object, Object> {

	private static final Log logger = LogFactory.getLog(PreCommitStore.class);

	private final String name;

	private @Nullable InternalProcessorContext<?, ?> context;

	private @Nullable ProcessorNode<?, ?, ?, ?> node;

	private boolean open;

	protected PreCommitStore(String name) {
		this.name = name;
	}

	/** A new store per task, as Kafka Streams builds every store. */
	protected static <S extends PreCommitStore> StoreBuilder<S> builder(String name, Function<String, S> factory) {
		return new Builder<>(name, factory);
	}

	/**
	 * Connects the store to the processor whose work it holds; called from that processor's {@code init}, while Kafka
	 * Streams has it as the current node.
	 */
	protected void connectTo(ProcessorContext<?, ?> context) {
		this.context = (InternalProcessorContext<?, ?>) context;
		this.node = this.context.currentNode();
	}

	/** True once a processor has connected, so there is someone to act for. */
	protected boolean connected() {
		return this.context != null;
	}

	/** The task's context, once a processor has connected. */
	protected InternalProcessorContext<?, ?> context() {
		return this.context;
	}

	/**
	 * Runs {@code work} as the connected processor, with what a punctuation sees (no input record) unless the work
	 * {@linkplain #useRecordContext sets a record}, then puts back what Kafka Streams had.
	 */
	protected void actAsProcessor(Runnable work) {
		ProcessorNode<?, ?, ?, ?> previousNode = this.context.currentNode();
		ProcessorRecordContext previousRecord = this.context.recordContext();
		this.context.setCurrentNode(this.node);
		useRecordContext(null);
		try {
			work.run();
		}
		finally {
			this.context.setCurrentNode(previousNode);
			this.context.setRecordContext(previousRecord);
		}
	}

	/** Inside {@link #actAsProcessor}: what follows runs as if processing {@code record} (null: no input record). */
	protected void useRecordContext(@Nullable ProcessorRecordContext record) {
		this.context.setRecordContext((record != null) ? record : new ProcessorRecordContext(
				this.context.currentSystemTimeMs(), -1, -1, null, new RecordHeaders()));
	}

	/**
	 * Runs work scheduled outside processing. When Kafka does not answer in time (the whole cluster gone longer than
	 * the producer waits), what did not go out stays for the next attempt, at the latest the commit, which cannot
	 * succeed without Kafka either; Kafka Streams would let the thread die of it.
	 * @param waiting what waits, for the log
	 */
	protected void whileKafkaAnswers(Runnable work, Supplier<String> waiting) {
		try {
			work.run();
		}
		catch (RuntimeException ex) {
			if (!causedByTimeout(ex)) {
				throw ex;
			}
			logger.warn("Kafka did not answer in time; " + waiting.get() + " wait for the next attempt: "
					+ ex.getMessage());
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

	/** The task is about to commit: whatever the store holds goes out now, into the commit. */
	@Override
	public abstract void flushCache();

	/** The task failed: its transaction aborts, and replaying its input fills the store again. */
	@Override
	public abstract void clearCache();

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
		// nothing to restore: the store never outlives a transaction
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

	private record Builder<S extends PreCommitStore>(String name, Function<String, S> factory)
			implements StoreBuilder<S> {

		@Override
		public S build() {
			return this.factory.apply(this.name);
		}

		@Override
		public StoreBuilder<S> withCachingEnabled() {
			return this;
		}

		@Override
		public StoreBuilder<S> withCachingDisabled() {
			return this;
		}

		@Override
		public StoreBuilder<S> withLoggingEnabled(Map<String, String> config) {
			throw new UnsupportedOperationException("Store '" + this.name + "' holds work only until its task commits");
		}

		@Override
		public StoreBuilder<S> withLoggingDisabled() {
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
