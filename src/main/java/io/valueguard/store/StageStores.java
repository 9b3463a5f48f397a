package io.valueguard.store;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueBytesStoreSupplier;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jspecify.annotations.Nullable;

/**
 * The stores of a stage's task: the stage's own table (with its changelog), the {@link WriteBehindTable} in front of
 * it that holds the task's writes until it commits, the {@link Outbox} that holds what the task sends the other stage
 * until it goes out in batches, and the {@link AppliedInput} marks (with their changelog) that keep input the task
 * applied from being applied twice.
 * @param <V> the table's values
 * @param <E> the outbox's entries
 */
public record StageStores<V, E>(StoreBuilder<KeyValueStore<String, V>> table,
		StoreBuilder<WriteBehindTable<String, V>> pendingWrites, StoreBuilder<Outbox<E>> outbox,
		StoreBuilder<KeyValueStore<String, Long>> appliedMarks, StoreBuilder<AppliedInput> appliedInput) {

	/**
	 * @param table the table's store, named as the stage's store ({@code bindings}, {@code owners})
	 * @param values the serde of the table's values
	 * @param recentEntries how many entries the stage's write-behind tables remember together
	 * @param outbox the outbox's name
	 * @param changelog settings of the table's changelog topic, besides compaction, which Kafka Streams sets
	 */
	public static <V, E> StageStores<V, E> of(KeyValueBytesStoreSupplier table, Serde<V> values, int recentEntries,
			String outbox, Map<String, String> changelog) {
		return new StageStores<>(Stores.keyValueStoreBuilder(table, Serdes.String(), values).withLoggingEnabled(changelog),
				WriteBehindTable.builder(pendingWritesOf(table.name()), recentEntries,
						Serdes.String().deserializer()), Outbox.builder(outbox),
				AppliedInput.marks(appliedMarksOf(table.name()), changelog),
				AppliedInput.builder(appliedInputOf(table.name())));
	}

	/**
	 * The stores with a changelog among those {@link #of} makes for the table {@code table}: the table and its
	 * {@link AppliedInput} marks.
	 */
	public static List<String> changelogged(String table) {
		return List.of(table, appliedMarksOf(table));
	}

	/** The name of the store of {@link AppliedInput} marks of the stage whose table is {@code table}. */
	static String appliedMarksOf(String table) {
		return table + "-applied-offsets";
	}

	/** The name of the {@link AppliedInput} of the stage whose table is {@code table}. */
	public static String appliedInputOf(String table) {
		return table + "-applied-input";
	}

	/** The name of the write-behind table in front of the store {@code table}. */
	public static String pendingWritesOf(String table) {
		return table + "-pending-writes";
	}

	/** What a processor supplier declares as its stores. */
	public Set<StoreBuilder<?>> all() {
		return Set.of(this.table, this.pendingWrites, this.outbox, this.appliedMarks, this.appliedInput);
	}

	/** The task's write-behind table, joined to the table it writes to; for a processor's {@code init}. */
	public WriteBehindTable<String, V> connect(ProcessorContext<?, ?> context) {
		WriteBehindTable<String, V> pending = context.getStateStore(this.pendingWrites.name());
		pending.connect(context, context.getStateStore(this.table.name()));
		return pending;
	}

	/**
	 * With retention on, sweeps the task's store a slice at a time ({@link Sweep}) through {@code table}, the
	 * write-behind table {@link #connect} returned; for a processor's {@code init}.
	 */
	public void sweep(ProcessorContext<?, ?> context, Retention retention, WriteBehindTable<String, V> table,
			Sweep.Forgettable<V> forgettable, Sweep.Swept swept) {
		if (retention.enabled()) {
			sweep(context, retention, table, forgettable, null, swept);
		}
	}

	/**
	 * As above, with a rewrite that the passes also do, whether retention is on or not: the processor calls
	 * {@link Sweep#wake} on the sweep returned when it asked the rewrite for work.
	 */
	public Sweep<V> sweep(ProcessorContext<?, ?> context, Retention retention, WriteBehindTable<String, V> table,
			Sweep.Forgettable<V> forgettable, Sweep.@Nullable Rewrite<V> rewrite, Sweep.Swept swept) {
		Sweep<V> sweep = new Sweep<>(context.<KeyValueStore<String, V>>getStateStore(this.table.name()), table,
				retention, forgettable, rewrite, swept, table::written, table::added);
		sweep.schedule(context);
		return sweep;
	}

	/**
	 * The task's marks of applied input, connected; for a processor's {@code init}. {@code passedOver} is told of each
	 * record passed over as applied before.
	 */
	public AppliedInput appliedInput(ProcessorContext<?, ?> context, Runnable passedOver) {
		AppliedInput applied = context.getStateStore(this.appliedInput.name());
		applied.connect(context, context.getStateStore(this.appliedMarks.name()), passedOver);
		return applied;
	}

	/** The task's outbox; for a processor's {@code init}. */
	public Outbox<E> outbox(ProcessorContext<?, ?> context) {
		return context.getStateStore(this.outbox.name());
	}

}
