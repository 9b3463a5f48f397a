package io.valueguard.store;

import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.internals.MeteredKeyValueStore;
import org.apache.kafka.streams.state.internals.WrappedStateStore;
import org.jspecify.annotations.Nullable;

/**
 * A stage's table over its store that, while its task reads a backlog, keeps each entry's latest write until the task
 * commits and then writes it once: an entry written twice between two commits costs one RocksDB write and one
 * changelog record, not two. Kafka's cost is per record, and the changelogs are most of what the stages write
 * (docs/design.md, "Writes to the stores wait for the commit, while a task reads a backlog").
 * <p>
 * While a task keeps up with live input its writes go straight to the store: it writes fewer than
 * {@link #WRITE_THROUGH} between two commits, few of them meet, and deferring them would add to the
 * claim-to-eviction latency what the commit's flush takes. A task that writes more than that between two commits is reading
 * a backlog: the rest of its writes wait, and so do all of them after a commit until one commit again holds no more
 * than {@link #WRITE_THROUGH}.
 * Reads see the pending writes first. Each write goes to the store with the record context it was made under, so its
 * changelog record carries the timestamp it carries without this table. The pending writes go out when the task
 * commits (a {@link PreCommitStore}), when {@link #MAX_PENDING} wait, and once the oldest has waited
 * {@link #MAX_DELAY} (at-least-once commits only every 30 s, and lookups read the store). A task that fails drops
 * them with its transaction and replays the input that made them.
 * <p>
 * The table also remembers the latest value of entries it read or wrote lately, so that the stage reads them again
 * from the heap, within a limit for all the tables of the stage ({@link RecentEntriesBudget}). Unlike Kafka's record cache
 * it keeps the decoded entries in a hash map, with no serialized keys, no ordering and no eviction order to keep up:
 * a read that misses costs one map lookup and one insertion, and the whole map is forgotten at once when it is full
 * (docs/design.md, "Entries read or written lately are read from the heap").
 * <p>
 * Lookups of many keys at once query the table ({@link TableEntries}) from outside the task: it reads them from the
 * store, as a lookup of one key does, so pending writes stay unseen until they are written there either way.
 */
public final class WriteBehindTable<K, V> extends PreCommitStore implements StateTable<K, V> {

	private static final Log logger = LogFactory.getLog(WriteBehindTable.class);

	/** Writes per task and commit that go straight to the store while the task keeps up with its input. */
	static final int WRITE_THROUGH = 1_000;

	/** Writes that wait at most, per task: a few MiB of heap at the entry sizes of the stages' stores. */
	static final int MAX_PENDING = 10_000;

	/** The longest a write waits when the task does not commit sooner. */
	static final Duration MAX_DELAY = Duration.ofSeconds(1);

	/** How often the wait is checked while writes wait. */
	static final Duration CHECK_INTERVAL = Duration.ofMillis(100);

	/**
	 * A new table per task, as Kafka Streams builds every store.
	 * @param recentEntries how many entries the tables this builder builds (one stage's) remember together
	 * @param filterKeys the deserializer of the store's keys, if the tables keep {@link StoredKeys}, built from the
	 * store whenever a task connects, so that a key the store does not hold is not looked for there; null: they do not
	 */
	public static <K, V> StoreBuilder<WriteBehindTable<K, V>> builder(String name, int recentEntries,
			@Nullable Deserializer<K> filterKeys) {
		RecentEntriesBudget recent = new RecentEntriesBudget(recentEntries);
		return builder(name, (table) -> new WriteBehindTable<>(table, recent, filterKeys));
	}

	private final Map<K, Write<V>> pending = new HashMap<>();

	/** The latest value of entries read or written lately, pending or not; forgotten all at once when full. */
	private final Map<K, V> recent = new HashMap<>();

	private final RecentEntriesBudget budget;

	private final @Nullable Deserializer<K> filterKeys;

	/** The keys the store may hold, while the table is connected and knows them all; null: ask the store. */
	private @Nullable StoredKeys storedKeys;

	/** Counted among the stage's tables that share {@link #budget}: from its processor's start to its close. */
	private boolean sharing;

	private @Nullable KeyValueStore<K, V> store;

	/** What {@link TableEntries} queries read, from other threads: the store and the task, once connected. */
	private volatile @Nullable Queried<K, V> queried;

	private long oldestPendingSince;

	/** Checks how long the oldest pending write has waited; scheduled only while writes wait. */
	private final OnDemandPunctuation check = new OnDemandPunctuation(CHECK_INTERVAL, (now) -> {
		if (now - this.oldestPendingSince >= MAX_DELAY.toMillis()) {
			whileKafkaAnswers(this::writeAll, () -> pending() + " writes to store '" + this.store.name() + "'");
		}
	});

	private int writesSinceCommit;

	/** Entries put so far, for the sweep's cadence ({@link #written}). */
	private long puts;

	/** Puts of keys the table did not know to hold an entry, for the sweep's pace ({@link #added}). */
	private long additions;

	/** The last commit held more than {@link #WRITE_THROUGH} writes: the task reads a backlog, and writes wait. */
	private boolean readingBacklog;

	private WriteBehindTable(String name, RecentEntriesBudget budget, @Nullable Deserializer<K> filterKeys) {
		super(name);
		this.budget = budget;
		this.filterKeys = filterKeys;
	}

	/**
	 * Connects the table to the store it writes to and to the processor that writes; called from that processor's
	 * {@code init}.
	 */
	public void connect(ProcessorContext<?, ?> context, KeyValueStore<K, V> store) {
		connectTo(context);
		this.store = store;
		this.queried = new Queried<>(store, context);
		// a store that Kafka Streams reuses for a new task: what the last task scheduled went with it
		this.check.cancel();
		// a task connects once its store is restored, and every write after that comes through this table
		this.storedKeys = (this.filterKeys != null) ? storedKeysOf(store, this.filterKeys, context) : null;
		if (this.storedKeys != null) {
			// none wait when a task starts (its last commit wrote them, or its failure dropped them); if one did,
			// it would reach the store after the keys were read from it
			this.pending.keySet().forEach(this.storedKeys::add);
		}
		if (!this.sharing) {
			this.budget.join();
			this.sharing = true;
		}
	}

	@Override
	public @Nullable V get(K key) {
		V value = this.recent.get(key);
		if (value != null) {
			return value;
		}
		// a pending write that was forgotten among the recent ones, when they filled up (a null value: a delete)
		Write<V> write = this.pending.isEmpty() ? null : this.pending.get(key);
		if (write != null) {
			return write.value();
		}
		if (this.storedKeys != null && !this.storedKeys.mayHold(key)) {
			return null;
		}
		value = this.store.get(key);
		if (value != null) {
			remember(key, value);
		}
		return value;
	}

	@Override
	public @Nullable V current(K key, V stored) {
		// every write is remembered or pending until it is in the store: neither, and the store has the latest
		V value = this.recent.get(key);
		if (value != null) {
			return value;
		}
		Write<V> write = this.pending.isEmpty() ? null : this.pending.get(key);
		return (write != null) ? write.value() : stored;
	}

	@Override
	public void put(K key, V value) {
		this.puts++;
		if (this.storedKeys != null) {
			this.storedKeys.add(key);
		}
		if (!remember(key, value)) {
			this.additions++;
		}
		write(key, value);
	}

	@Override
	public void delete(K key) {
		this.recent.remove(key);
		write(key, null);
	}

	private void write(K key, @Nullable V value) {
		// nothing is pending before the last of these, so the store holds every entry they wrote
		if (++this.writesSinceCommit <= WRITE_THROUGH && !this.readingBacklog) {
			writeToStore(key, value);
			return;
		}
		if (this.pending.isEmpty()) {
			this.oldestPendingSince = context().currentSystemTimeMs();
			this.check.schedule(context());
		}
		this.pending.put(key, new Write<>(value, context().recordContext()));
		if (this.pending.size() >= MAX_PENDING) {
			writeAll();
		}
	}

	// A null value deletes: Kafka's delete() reads the entry first, to return it, and that read of an old entry, deep in
	// RocksDB's files, cost the sweep more than all else it does (docs/benchmarks.md, "A delete that reads")
	private void writeToStore(K key, @Nullable V value) {
		this.store.put(key, value);
	}

	// Forgetting all at once costs nothing per read, and a table whose task reads more entries than its share still
	// remembers about half of its share on average. The entries are immutable records, so sharing them is safe.
	// Returns whether the key was remembered before: then it held an entry, since a delete forgets the key.
	private boolean remember(K key, V value) {
		int share = this.budget.share();
		if (share == 0) {
			return false;
		}
		if (this.recent.size() >= share) {
			this.recent.clear();
		}
		return this.recent.put(key, value) != null;
	}

	private static <K> StoredKeys storedKeysOf(KeyValueStore<K, ?> store, Deserializer<K> keys,
			ProcessorContext<?, ?> context) {
		long started = System.nanoTime();
		int[] hashes = new int[1024];
		int count = 0;
		// the serialized entries beneath Kafka Streams' typed store, where there is one: through it, every value
		// would be decoded too
		MeteredKeyValueStore<?, ?> typed = typedStoreOf(store);
		try (KeyValueIterator<?, ?> entries = (typed != null) ? typed.wrapped().all() : store.all()) {
			while (entries.hasNext()) {
				Object key = entries.next().key;
				if (count == hashes.length) {
					hashes = Arrays.copyOf(hashes, count * 2);
				}
				hashes[count++] = (typed != null) ? keys.deserialize(store.name(), ((Bytes) key).get()).hashCode()
						: key.hashCode();
			}
		}
		StoredKeys storedKeys = new StoredKeys(hashes, count);
		// one line per task with keys, beside the restore's: how much of a task's start this pass takes
		if (count > 0) {
			logger.info(String.format(Locale.ROOT, "Read %d keys of store %s of task %s into its key filters in %d ms",
					count, store.name(), context.taskId(), (System.nanoTime() - started) / 1_000_000));
		}
		return storedKeys;
	}

	/**
	 * Kafka Streams' typed store in {@code store}, which is it or wraps it (a processor gets it wrapped in a decorator
	 * that refuses to close it); null if there is none, as in tests.
	 */
	private static @Nullable MeteredKeyValueStore<?, ?> typedStoreOf(StateStore store) {
		StateStore layer = store;
		while (!(layer instanceof MeteredKeyValueStore<?, ?>) && layer instanceof WrappedStateStore<?, ?, ?> wrapper) {
			layer = wrapper.wrapped();
		}
		return (layer instanceof MeteredKeyValueStore<?, ?> typed) ? typed : null;
	}

	/**
	 * How many entries were put through the table so far, in the life of this table (it may serve several tasks one
	 * after the other): how busy its task is. Deletes are not counted.
	 */
	public long written() {
		return this.puts;
	}

	/**
	 * How many of the entries {@link #written} were of keys the table did not know to hold an entry, in its life: the
	 * most the store can have grown by. A put of a key it remembers (read or written lately, and not deleted since)
	 * replaces that key's entry and adds none; every other put is counted, whether it adds one or not, and deletes
	 * never grow the store.
	 */
	public long added() {
		return this.additions;
	}

	/** How many entries wait to be written. */
	int pending() {
		return this.pending.size();
	}

	private void writeAll() {
		actAsProcessor(() -> {
			for (Map.Entry<K, Write<V>> write : this.pending.entrySet()) {
				useRecordContext(write.getValue().record());
				writeToStore(write.getKey(), write.getValue().value());
			}
		});
		// only now: a write that fails leaves all pending, those done too, and writing one again changes nothing
		this.pending.clear();
		this.check.cancel();
	}

	@Override
	public void writePending() {
		if (!this.pending.isEmpty()) {
			writeAll();
		}
	}

	@Override
	public void flushCache() {
		// only a connected table has pending writes
		if (!this.pending.isEmpty()) {
			writeAll();
		}
		this.readingBacklog = this.writesSinceCommit > WRITE_THROUGH;
		this.writesSinceCommit = 0;
	}

	/**
	 * Answers a {@link TableEntries} query with the entries of its keys in this task's partition, read from the store;
	 * called by Kafka Streams on the querying thread. Every other query is unknown to the table.
	 */
	@Override
	@SuppressWarnings("unchecked")
	public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
		if (!(query instanceof TableEntries<?, ?> entries)) {
			return QueryResult.forUnknownQueryType(query, this);
		}
		Queried<K, V> connected = this.queried;
		if (connected == null || !connected.store().isOpen()) {
			return QueryResult.forFailure(FailureReason.NOT_PRESENT,
					"Table '" + name() + "' is not open for queries: its task is not processing");
		}
		Map<K, V> found = new HashMap<>();
		try {
			for (K key : ((TableEntries<K, V>) entries).keysOf(connected.context().taskId().partition())) {
				V value = connected.store().get(key);
				if (value != null) {
					found.put(key, value);
				}
			}
		}
		catch (InvalidStateStoreException ex) {
			// the task closed its store meanwhile (a rebalance): the caller looks elsewhere or again
			return QueryResult.forFailure(FailureReason.STORE_EXCEPTION, ex.getMessage());
		}
		return QueryResult.forResult((R) found);
	}

	@Override
	public void close() {
		this.queried = null;
		super.close();
		if (this.sharing) {
			this.budget.leave();
			this.sharing = false;
		}
	}

	@Override
	public void clearCache() {
		// the task failed, or its store is changing hands: the store may no longer hold what the table remembers
		this.recent.clear();
		this.pending.clear();
		// until the task connects again, after its store is restored: the store may hold keys not added here
		this.storedKeys = null;
		this.check.cancel();
		this.writesSinceCommit = 0;
		this.readingBacklog = false;
	}

	/** The store a connected table reads queries from, and the task whose partition it is. */
	private record Queried<K, V>(KeyValueStore<K, V> store, ProcessorContext<?, ?> context) {
	}

	/** A write waiting for the commit; a null value deletes the entry. */
	private record Write<V>(@Nullable V value, ProcessorRecordContext record) {
	}

}
