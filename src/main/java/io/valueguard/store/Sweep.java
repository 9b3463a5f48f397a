package io.valueguard.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jspecify.annotations.Nullable;

/**
 * Passes over a task's store a slice at a time: every {@link #INTERVAL} it reads the next entries in key order from
 * where the last slice ended, and at the end of the store it starts over. The sweep reads {@link #PACE} entries for
 * every entry the task's table may have added since the last slice, at most {@link #MAX_SLICE} a second, and at least
 * enough for a pass to span no more than a {@link #SPAN}th of the retention in stream time, or, during the first pass
 * after the task starts and while a rewrite waits, {@link #SLICE} a second: so a pass comes round however fast the task
 * adds entries (up to half of {@link #MAX_SLICE} new entries a second), a task whose stream time moves slowly reads
 * little, and the cost is bounded per second and per task, never a scan of the whole store at once. While the task
 * writes ({@link #BUSY_WRITES}), the same reads come in slices every {@link #BUSY_INTERVAL} instead, and a slice stops
 * after {@link #SLICE_TIME} whatever it has read, what it did not read owed to the next: so that no slice holds up the
 * task's records for long. Each entry a pass reads is first given to the {@link Rewrite} (erasure, which replaces or
 * deletes entries that name an erased key), then forgotten through the stage's table if retention lets it go at the
 * task's stream time. An entry is forgotten at most one pass over its store after it may be (docs/design.md,
 * "Retention"); a rewrite asked for joins the pass under way, and is done once the sweep has read every entry since
 * ("Erasure"), told where each chunk ended ({@link Rewrite#passedTo}). After a full pass during
 * which the task put nothing, no new pass starts until the task puts again or its stream time moves: it would forget
 * nothing (an idle task's store is not read over and over). With retention off, a pass starts only when a rewrite waits
 * for one, and the sweep is scheduled only then ({@link #wake}): an idle task is not made to commit every
 * {@link #INTERVAL} for nothing ({@link OnDemandPunctuation}).
 * @param <V> the store's values
 */
public final class Sweep<V> {

	/** How often a slice is swept while the task writes fewer than {@link #BUSY_WRITES} entries a second. */
	static final Duration INTERVAL = Duration.ofSeconds(1);

	/**
	 * How often a slice is swept while the task writes: the share of a second's reads since the last slice each time.
	 * A slice a second held a task's records up for 200 to 260 ms on average at one partition catching up
	 * (docs/benchmarks.md, "The sweep's slices: what they hold up"); a task that writes commits every commit interval
	 * anyway, so the extra punctuations add no commits.
	 */
	static final Duration BUSY_INTERVAL = Duration.ofMillis(100);

	/**
	 * Entries a task writes a second, at least, for its sweep to come every {@link #BUSY_INTERVAL}: about one record per
	 * commit interval, below which a punctuation every {@link #BUSY_INTERVAL} would make the task commit for nothing.
	 */
	static final int BUSY_WRITES = 100;

	/**
	 * How long a slice goes on at most, give or take a {@link #CHUNK}: what it was to read beyond is owed to the next
	 * slices. The default commit interval under exactly-once. A slice of 100,000 entries that all went took up to
	 * 800 ms at one partition catching up, most of it in the deletes.
	 */
	static final Duration SLICE_TIME = Duration.ofMillis(100);

	/**
	 * Entries read a second at least during the first pass after a task starts, and while a rewrite waits: about a tenth
	 * of a stage's per-second budget of store reads at full load. By the clock, not the stream time, because each start
	 * begins a pass at the store's first key: a pass by the stream time may span days, and a task restarted more often
	 * than that would never reach its store's last keys.
	 */
	static final int SLICE = 10_000;

	/**
	 * Once a pass has read the whole store, a pass spans at most this share of the retention in stream time: the
	 * sweep reads at least {@link #PACE} entries per entry the store may hold for each {@code 1/SPAN} of the retention
	 * the stream time moves, so that an entry goes at most half the retention after it may, as a segment of Kafka
	 * Streams' windowed stores does (docs/design.md, "Retention"). Nothing becomes forgettable while the stream time
	 * stands still, and a retention of days is served by a pass every quarter of it at most, not one every minute or two
	 * for a million entries. A tenth read twice as much in the churn benchmark, where the stream time runs a minute a
	 * second, for stores no smaller.
	 */
	static final int SPAN = 4;

	/**
	 * Entries read per entry the table may have added since the last slice: the store grows by at most that many
	 * entries, so the sweep reads twice as fast as it grows, and a pass over {@code E} entries ends before the store has
	 * gained {@code E} more, wherever the new keys fall (docs/design.md, "Retention"). Puts that replace an entry the
	 * table knew of do not count: in a churn that claims, moves and lets go, they were two puts in three.
	 */
	static final int PACE = 2;

	/**
	 * The share of a second's reads that {@link #wake} sweeps at once: a slice as one every {@link #BUSY_INTERVAL}
	 * reads, {@link #SLICE} / 10 entries while a rewrite waits.
	 */
	static final double WAKING_SHARE = BUSY_INTERVAL.toMillis() / (double) INTERVAL.toMillis();

	/** Entries read a second at most: bounds the sweep's share of its task's time. */
	static final int MAX_SLICE = 10 * SLICE;

	/**
	 * Entries a slice reads and acts on before it looks at the clock for {@link #SLICE_TIME}: at 1 µs a read and 5 to
	 * 8 µs a delete, with its changelog tombstone, a chunk takes under 10 ms.
	 */
	static final int CHUNK = 1_000;

	/** Whether an entry may be forgotten, given its task's stream time. */
	@FunctionalInterface
	public interface Forgettable<V> {

		boolean test(V entry, long streamTime);

	}

	/**
	 * What one slice did: the entries it read, those it forgot, and how long it held up its task's records.
	 * @param nanos from the slice's first read to its last write into the table
	 * @param span the stream time the pass this slice read has spanned so far, as a share of the retention: at most
	 * {@code 1 / SPAN} while the sweep keeps up, a quarter (docs/design.md, "Retention"); 0 with retention off
	 */
	public record Slice(int read, int forgotten, long nanos, double span) {

		/** A slice that read nothing. */
		static final Slice NONE = new Slice(0, 0, 0, 0);

	}

	/** Told of each slice, for metrics. */
	@FunctionalInterface
	public interface Swept {

		void swept(Slice slice);

	}

	/** Work a pass does on whole entries besides forgetting them: what it is to do is fixed when a pass starts. */
	public interface Rewrite<V> {

		/** True when a pass has work to do for this rewrite: without retention, no pass starts otherwise. */
		boolean pending();

		/** A pass starts at the store's first entry. */
		void passStarts();

		/** The entry as the pass leaves it: {@code entry} itself, a replacement, or null to delete it. */
		@Nullable V rewrite(String key, V entry);

		/**
		 * The pass has read, and rewritten, every entry up to {@code key} in the store's order (unsigned UTF-8 bytes),
		 * and goes on after it: told after each chunk of a slice.
		 */
		default void passedTo(String key) {
		}

		/** The pass has read, and rewritten, every entry the store held when it started. */
		void passEnded();

	}

	private final KeyValueStore<String, V> store;

	private final StateTable<String, V> table;

	private final @Nullable Forgettable<V> forgettable;

	/** The retention {@link #forgettable} measures, in milliseconds of stream time. */
	private final long retention;

	private final @Nullable Rewrite<V> rewrite;

	private final Swept swept;

	/** How many entries the task's table has written so far, the sweep's own writes among them: its cadence. */
	private final LongSupplier written;

	/** How many of those may each have added an entry to the store: its pace. */
	private final LongSupplier added;

	/** What {@link #written} said when the last slice ended: the task's writes since are what it counts. */
	private long writtenBySliceEnd;

	/** What {@link #added} said when the last slice ended. */
	private long addedBySliceEnd;

	private final int slice;

	/** Where the next slice starts: after this key; null at the start of the store. */
	private @Nullable String after;

	/** The last key a slice read. */
	private String lastRead = "";

	/** A pass is under way: {@link #after} is where it goes on. */
	private boolean passing;

	/** The stream time the last pass started at; none before the first. */
	private long passStartedAt = Long.MIN_VALUE;

	/** The first stream time the pass under way knew, which its span is measured from; negative before it knew one. */
	private long passSpanFrom = -1;

	/** The task has put entries since the last pass started. */
	private boolean writtenSincePassStarted;

	/** The stream time at the last slice; negative before the first that knew one. */
	private long streamTimeAtSliceEnd = -1;

	/** How many entries the store held at most when this pass started; negative before a pass has read it whole. */
	private long passEntries = -1;

	/** Entries the last full pass read and left in the store; negative before the first full pass. */
	private long keptByLastPass = -1;

	/** Entries this pass read and left in the store so far. */
	private long keptByThisPass;

	/** Entries the task's table may have added since this pass started, or since the last ended while none runs. */
	private long addedSincePassStarted;

	private final OnDemandPunctuation slices = new OnDemandPunctuation(INTERVAL, this::sweepSlice);

	private final OnDemandPunctuation busySlices = new OnDemandPunctuation(BUSY_INTERVAL, this::sweepSlice);

	/** Which of the two is scheduled, or would be. */
	private OnDemandPunctuation cadence = this.slices;

	/** The wall-clock time of the last scheduled slice, or -1 before the first. */
	private long lastSliceAt = -1;

	/** Entries the last slice was to read but did not, stopped by {@link #SLICE_TIME}: the next reads them as well. */
	private long owed;

	/** Nanoseconds, for {@link #SLICE_TIME}. */
	private final LongSupplier nanoTime;

	private @Nullable ProcessorContext<?, ?> context;

	/**
	 * @param retention how long retention keeps an entry; with it off the sweep only rewrites
	 * @param forgettable which entries {@code retention} lets go
	 * @param rewrite what else a pass does, or null
	 * @param written how many entries {@code table} has written so far: {@link WriteBehindTable#written}
	 * @param added how many of those may have added an entry: {@link WriteBehindTable#added}
	 */
	public Sweep(KeyValueStore<String, V> store, StateTable<String, V> table, Retention retention,
			Forgettable<V> forgettable, @Nullable Rewrite<V> rewrite, Swept swept, LongSupplier written,
			LongSupplier added) {
		this(store, table, retention, forgettable, rewrite, swept, written, added, SLICE, System::nanoTime);
	}

	/**
	 * @param slice the entries read a second at least while the sweep reads by the clock; {@link #MAX_SLICE} stays
	 * the most
	 * @param nanoTime the clock {@link #SLICE_TIME} is measured on
	 */
	Sweep(KeyValueStore<String, V> store, StateTable<String, V> table, Retention retention,
			@Nullable Forgettable<V> forgettable, @Nullable Rewrite<V> rewrite, Swept swept, LongSupplier written,
			LongSupplier added, int slice, LongSupplier nanoTime) {
		this.store = store;
		this.table = table;
		this.forgettable = retention.enabled() ? forgettable : null;
		this.retention = retention.millis();
		this.rewrite = rewrite;
		this.swept = swept;
		this.written = written;
		this.added = added;
		this.writtenBySliceEnd = written.getAsLong();
		this.addedBySliceEnd = added.getAsLong();
		this.slice = slice;
		this.nanoTime = nanoTime;
	}

	/**
	 * Sweeps a slice every {@link #INTERVAL} of wall-clock time, at the task's stream time then: always with
	 * retention on; with it off, from now on only while a rewrite waits ({@link #wake}). For a processor's
	 * {@code init}.
	 */
	public void schedule(ProcessorContext<?, ?> context) {
		this.context = context;
		if (this.forgettable != null || (this.rewrite != null && this.rewrite.pending())) {
			this.cadence.schedule(context);
		}
	}

	/**
	 * The rewrite may have work now (an erasure was asked for): with retention off, the pass that does it starts at
	 * once, with a slice of {@link #WAKING_SHARE} of a second's reads, and the sweep is scheduled until it ends. Cheap
	 * when a pass is under way or there is nothing to do; from processing.
	 */
	public void wake() {
		if (this.context == null || this.rewrite == null || !this.rewrite.pending()) {
			return;
		}
		if (this.forgettable == null && !this.passing) {
			// nothing else reads the store with retention off: a small store's erasure is done before the task's next
			// commit rather than a scheduled slice later; a pass under way (or retention's) is not read faster
			Slice slice = slice(this.context.currentStreamTimeMs(), WAKING_SHARE);
			if (slice.read() > 0) {
				this.swept.swept(slice);
			}
			if (!this.passing && !this.rewrite.pending()) {
				return;
			}
		}
		this.cadence.schedule(this.context);
	}

	/** A scheduled slice, at wall-clock time {@code now}: its share of a second is the time since the last one. */
	private void sweepSlice(long now) {
		long since = (this.lastSliceAt < 0) ? this.cadence.interval().toMillis() : now - this.lastSliceAt;
		this.lastSliceAt = now;
		// a punctuation comes late while the task is busy: the reads owed grow with the time since the last
		double share = Math.min(1, Math.max(BUSY_INTERVAL.toMillis(), since) / (double) INTERVAL.toMillis());
		long writes = this.written.getAsLong() - this.writtenBySliceEnd;
		Slice slice = slice(this.context.currentStreamTimeMs(), share, writes);
		if (slice.read() > 0) {
			this.swept.swept(slice);
		}
		if (this.forgettable == null && !this.passing && (this.rewrite == null || !this.rewrite.pending())) {
			this.cadence.cancel();
			this.cadence = this.slices;
			this.lastSliceAt = -1;
			return;
		}
		OnDemandPunctuation next = (writes >= BUSY_WRITES * share) ? this.busySlices : this.slices;
		if (next != this.cadence) {
			this.cadence.cancel();
			this.cadence = next;
			this.cadence.schedule(this.context);
		}
	}

	/**
	 * Sweeps the next slice, a second's worth at the pace of the entries the task may have added since the last;
	 * returns how many entries it forgot.
	 */
	public int sweep(long streamTime) {
		return slice(streamTime, 1).forgotten();
	}

	/** The next slice, standing for {@code share} of a second's reads, with what the last owes. */
	Slice slice(long streamTime, double share) {
		return slice(streamTime, share, this.written.getAsLong() - this.writtenBySliceEnd);
	}

	/** As above, the task having put {@code writes} entries since the last slice. */
	private Slice slice(long streamTime, double share, long writes) {
		long start = this.nanoTime.getAsLong();
		if (writes > 0) {
			this.writtenSincePassStarted = true;
		}
		long additions = this.added.getAsLong() - this.addedBySliceEnd;
		this.addedSincePassStarted += additions;
		long moved = (this.streamTimeAtSliceEnd >= 0 && streamTime > this.streamTimeAtSliceEnd)
				? streamTime - this.streamTimeAtSliceEnd : 0;
		this.streamTimeAtSliceEnd = Math.max(this.streamTimeAtSliceEnd, streamTime);
		long reads = Math.min((long) Math.ceil(MAX_SLICE * share), Math.max(least(share, moved), PACE * additions));
		// what earlier slices owe is never more than a second's most, so a slow store cannot pile it up
		long target = Math.min(MAX_SLICE, reads + this.owed);
		Slice slice = (target > 0) ? slice(streamTime, (int) target, start) : Slice.NONE;
		this.owed = this.passing ? target - slice.read() : 0;
		// the slice's own deletes and rewrites are not the task's: they would drive the next slice's pace
		this.writtenBySliceEnd = this.written.getAsLong();
		this.addedBySliceEnd = this.added.getAsLong();
		return slice;
	}

	/**
	 * The entries a slice standing for {@code share} of a second reads at least, the stream time having moved by
	 * {@code moved} since the last: by the clock until a pass has read the whole store and while a rewrite waits, by
	 * the stream time otherwise.
	 */
	private long least(double share, long moved) {
		long entries = this.passing ? this.passEntries : entriesAtPassStart();
		if (entries < 0 || (this.rewrite != null && this.rewrite.pending())) {
			return (long) Math.ceil(this.slice * share);
		}
		// as a double: entries times milliseconds may overflow a long, and the slice's most caps it anyway
		return (long) Math.ceil(PACE * SPAN * (double) entries * moved / this.retention);
	}

	/** The most entries the store holds if a pass started now, or -1 before a pass has read it whole. */
	private long entriesAtPassStart() {
		// every entry now was either there when the last pass started, so that pass read it and left it, or was added
		// by a put since (the sweep's own rewrites replace entries, they add none)
		return (this.keptByLastPass < 0) ? -1 : this.keptByLastPass + this.addedSincePassStarted;
	}

	private Slice slice(long streamTime, int slice, long start) {
		if (!this.passing && !startPass(streamTime)) {
			return Slice.NONE;
		}
		if (this.rewrite != null && this.rewrite.pending()) {
			// a rewrite asked for during this pass goes on from where the pass is: what the task wrote before it was
			// asked for, and its table holds still, must be in the store by the time the pass reads there
			this.table.writePending();
		}
		if (this.passSpanFrom < 0) {
			// a task's stream time is unknown until its first record
			this.passSpanFrom = streamTime;
		}
		double span = (this.forgettable != null && this.passSpanFrom >= 0)
				? (streamTime - this.passSpanFrom) / (double) this.retention : 0;
		long deadline = start + SLICE_TIME.toNanos();
		int read = 0;
		int forgot = 0;
		// a chunk at a time, each read and then acted on in full, so that a slice can stop at its time between two
		// without leaving read entries undone: forgetting an entry cost several times reading it
		do {
			List<KeyValue<String, V>> candidates = new ArrayList<>();
			int chunk = readChunk(streamTime, Math.min(CHUNK, slice - read), candidates);
			int forgotten = act(candidates, streamTime);
			if (this.rewrite != null && chunk > 0) {
				this.rewrite.passedTo(this.lastRead);
			}
			read += chunk;
			forgot += forgotten;
			// at most: a rewrite's deletes and the task's own are counted as kept
			this.keptByThisPass += chunk - forgotten;
		}
		while (this.after != null && read < slice && this.nanoTime.getAsLong() < deadline);
		if (this.after == null) {
			this.passing = false;
			this.keptByLastPass = this.keptByThisPass;
			if (this.rewrite != null) {
				this.rewrite.passEnded();
			}
		}
		return new Slice(read, forgot, this.nanoTime.getAsLong() - start, span);
	}

	/**
	 * Reads up to {@code count} entries after {@link #after}, adds those to forget or rewrite to {@code candidates},
	 * and moves {@link #after} to the last read, or to null at the end of the store; returns how many it read.
	 */
	private int readChunk(long streamTime, int count, List<KeyValue<String, V>> candidates) {
		int read = 0;
		String last = null;
		try (KeyValueIterator<String, V> entries = this.store.range(this.after, null)) {
			while (entries.hasNext() && read < count) {
				KeyValue<String, V> entry = entries.next();
				if (entry.key.equals(this.after)) {
					// the range starts at the last chunk's last key, which that chunk has seen
					continue;
				}
				read++;
				last = entry.key;
				this.lastRead = last;
				if (forgettable(entry.value, streamTime) || rewritten(entry.key, entry.value) != entry.value) {
					candidates.add(entry);
				}
			}
			this.after = entries.hasNext() ? last : null;
		}
		return read;
	}

	/** Forgets or rewrites the candidates a chunk read, on the table's newest writes; returns how many it forgot. */
	private int act(List<KeyValue<String, V>> candidates, long streamTime) {
		int forgot = 0;
		for (KeyValue<String, V> candidate : candidates) {
			// the table may hold a newer write than the store: decide on that
			V current = this.table.current(candidate.key, candidate.value);
			if (current == null) {
				continue;
			}
			V kept = rewritten(candidate.key, current);
			if (kept == null || forgettable(kept, streamTime)) {
				this.table.delete(candidate.key);
				forgot += (kept != null) ? 1 : 0;
			}
			else if (kept != current) {
				this.table.put(candidate.key, kept);
			}
		}
		return forgot;
	}

	private boolean startPass(long streamTime) {
		boolean rewriting = this.rewrite != null && this.rewrite.pending();
		if (this.forgettable == null && !rewriting) {
			return false;
		}
		// the last pass read every entry at this stream time and the task has changed none since: each entry left is
		// one that pass kept, and keeps until the stream time moves (docs/design.md, "Retention")
		if (!rewriting && streamTime == this.passStartedAt && !this.writtenSincePassStarted) {
			return false;
		}
		this.passStartedAt = streamTime;
		this.passSpanFrom = streamTime;
		this.writtenSincePassStarted = false;
		this.passEntries = entriesAtPassStart();
		this.keptByThisPass = 0;
		this.addedSincePassStarted = 0;
		// entries written before the pass, and not yet in the store, must be among those it reads: for a rewrite, and
		// for the rest above, which counts on this pass having read every entry put before it started
		this.table.writePending();
		if (this.rewrite != null) {
			// also when nothing waits: a rewrite asked for during the pass may join it
			this.rewrite.passStarts();
		}
		this.passing = true;
		return true;
	}

	private boolean forgettable(V entry, long streamTime) {
		return this.forgettable != null && this.forgettable.test(entry, streamTime);
	}

	private @Nullable V rewritten(String key, V entry) {
		return (this.rewrite != null) ? this.rewrite.rewrite(key, entry) : entry;
	}

}
