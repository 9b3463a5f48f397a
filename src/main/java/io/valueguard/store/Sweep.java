package io.valueguard.store;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.jspecify.annotations.Nullable;

/**
 * Forgets the entries of a task's store that retention lets go, a slice at a time: every {@link #INTERVAL} it reads
 * the next {@link #SLICE} entries in key order from where the last slice ended, and deletes through the stage's table
 * those that may be forgotten at the task's stream time; at the end of the store it starts over. So the cost is
 * bounded per second and per task, never a scan of the whole store at once, and an entry is forgotten at most one
 * pass over its store after it may be (docs/design.md, "Retention").
 * @param <V> the store's values
 */
public final class Sweep<V> {

	/** How often a slice is swept. */
	static final Duration INTERVAL = Duration.ofSeconds(1);

	/** Entries read per slice: about a tenth of a stage's per-second budget of store reads at full load. */
	static final int SLICE = 10_000;

	/** Whether an entry may be forgotten, given its task's stream time. */
	@FunctionalInterface
	public interface Forgettable<V> {

		boolean test(V entry, long streamTime);

	}

	/** Told how many entries each slice forgot, for metrics. */
	@FunctionalInterface
	public interface Forgotten {

		void forgot(int entries);

	}

	private final KeyValueStore<String, V> store;

	private final StateTable<String, V> table;

	private final Forgettable<V> forgettable;

	private final Forgotten forgotten;

	private final int slice;

	/** Where the next slice starts: after this key; null at the start of the store. */
	private @Nullable String after;

	public Sweep(KeyValueStore<String, V> store, StateTable<String, V> table, Forgettable<V> forgettable,
			Forgotten forgotten) {
		this(store, table, forgettable, forgotten, SLICE);
	}

	Sweep(KeyValueStore<String, V> store, StateTable<String, V> table, Forgettable<V> forgettable,
			Forgotten forgotten, int slice) {
		this.store = store;
		this.table = table;
		this.forgettable = forgettable;
		this.forgotten = forgotten;
		this.slice = slice;
	}

	/** Sweeps a slice every {@link #INTERVAL} of wall-clock time, at the task's stream time then. */
	public void schedule(ProcessorContext<?, ?> context) {
		context.schedule(INTERVAL, PunctuationType.WALL_CLOCK_TIME,
				(now) -> this.forgotten.forgot(sweep(context.currentStreamTimeMs())));
	}

	/** Sweeps the next slice; returns how many entries it forgot. */
	public int sweep(long streamTime) {
		List<KeyValue<String, V>> candidates = new ArrayList<>();
		int read = 0;
		String last = null;
		try (KeyValueIterator<String, V> entries = this.store.range(this.after, null)) {
			while (entries.hasNext() && read < this.slice) {
				KeyValue<String, V> entry = entries.next();
				if (entry.key.equals(this.after)) {
					// the range starts at the last slice's last key, which that slice has seen
					continue;
				}
				read++;
				last = entry.key;
				if (this.forgettable.test(entry.value, streamTime)) {
					candidates.add(entry);
				}
			}
			this.after = entries.hasNext() ? last : null;
		}
		int forgot = 0;
		for (KeyValue<String, V> candidate : candidates) {
			// the table may hold a newer write than the store: decide on that
			V current = this.table.current(candidate.key, candidate.value);
			if (current != null && this.forgettable.test(current, streamTime)) {
				this.table.delete(candidate.key);
				forgot++;
			}
		}
		return forgot;
	}

}
