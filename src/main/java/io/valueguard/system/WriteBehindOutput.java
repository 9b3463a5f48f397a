package io.valueguard.system;

import java.util.function.Consumer;

import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.jspecify.annotations.Nullable;

/**
 * A processor's output of a table's updates, one record per key and update, whose records, while the task reads a
 * backlog, wait for the commit and then go out once per key: the latest ({@link WriteBehind}). That is what a cached
 * KTable writes to its topic, and what a {@code read_committed} consumer of a compacted topic can rely on anyway:
 * every record of a transaction becomes visible at once, at its commit, and compaction keeps only a key's latest.
 * Records go out as they were made, with their timestamps and headers.
 */
public final class WriteBehindOutput<K, V> extends WriteBehind<K, Record<K, V>> {

	/** A new output per task, as Kafka Streams builds every store. */
	public static <K, V> StoreBuilder<WriteBehindOutput<K, V>> builder(String name) {
		return builder(name, WriteBehindOutput::new);
	}

	private @Nullable Consumer<Record<K, V>> forward;

	private WriteBehindOutput(String name) {
		super(name);
	}

	/**
	 * Connects the output to the processor that makes the records and to how that processor forwards them; called
	 * from the processor's {@code init}.
	 */
	public void connect(ProcessorContext<?, ?> context, Consumer<Record<K, V>> forward) {
		this.forward = forward;
		start(context);
	}

	/** Forwards the record now, or keeps it as its key's latest until the commit. */
	public void emit(Record<K, V> record) {
		write(record.key(), record);
	}

	@Override
	protected void apply(K key, Record<K, V> record) {
		this.forward.accept(record);
	}

	@Override
	protected String destination() {
		return "output '" + name() + "'";
	}

}
