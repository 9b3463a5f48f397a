package io.valueguard.owners;

import java.util.Set;

import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.system.Outbox;
import io.valueguard.system.RecordSource;
import io.valueguard.system.ValueGuardProperties;
import io.valueguard.system.WriteBehindTable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jspecify.annotations.Nullable;

/** Runs {@link ValueStage} in a stream task, over the task's partition of the {@code owners} store. */
final class ValueStageProcessor implements Processor<String, CommandBatch, String, VerdictBatch> {

	/** Name of the value stage's store: value to its top claim. */
	static final String STORE = "owners";

	/** Name of the store that holds the task's writes to {@link #STORE} until it commits. */
	static final String PENDING_WRITES = "owners-pending-writes";

	/** Name of the store that holds the task's verdicts until they go out in batches. */
	static final String OUTBOX = "verdict-outbox";

	static ProcessorSupplier<String, CommandBatch, String, VerdictBatch> supplier(ValueStageEvents events,
			ValueGuardProperties.Store settings) {
		StoreBuilder<KeyValueStore<String, Owner>> store = Stores
			.keyValueStoreBuilder(settings.type().supplier(STORE), Serdes.String(), new Owner.Serde());
		StoreBuilder<WriteBehindTable<String, Owner>> pendingWrites = WriteBehindTable.builder(PENDING_WRITES,
				settings.recentEntries());
		StoreBuilder<Outbox<VerdictBatch.Entry>> outbox = Outbox.builder(OUTBOX);
		return new ProcessorSupplier<>() {

			@Override
			public Processor<String, CommandBatch, String, VerdictBatch> get() {
				return new ValueStageProcessor(events);
			}

			@Override
			public Set<StoreBuilder<?>> stores() {
				return Set.of(store, pendingWrites, outbox);
			}

		};
	}

	private static final Log logger = LogFactory.getLog(ValueStageProcessor.class);

	private final ValueStageEvents events;

	private @Nullable ProcessorContext<String, VerdictBatch> context;

	private @Nullable ValueStage stage;

	private ValueStageProcessor(ValueStageEvents events) {
		this.events = events;
	}

	@Override
	public void init(ProcessorContext<String, VerdictBatch> context) {
		this.context = context;
		WriteBehindTable<String, Owner> owners = context.getStateStore(PENDING_WRITES);
		owners.connect(context, context.getStateStore(STORE));
		Outbox<VerdictBatch.Entry> outbox = context.getStateStore(OUTBOX);
		outbox.connect(context, (partition, entries, timestamp) -> context
			.forward(new Record<>(null, new VerdictBatch(partition, entries), timestamp)));
		// a verdict's record time is when the claim that decided it was made
		this.stage = new ValueStage(owners, (key, eviction) -> outbox.add(eviction.keyPartition(),
				new VerdictBatch.Entry(key, eviction), VerdictBatch.sizeOf(key, eviction), eviction.decidedAt()));
	}

	@Override
	public void process(Record<String, CommandBatch> record) {
		if (record.value() == null) {
			skipForeign("value");
			return;
		}
		for (CommandBatch.Entry entry : record.value().entries()) {
			// a single command from before batching names its value in the record key
			String value = (entry.value() != null) ? entry.value() : record.key();
			if (value == null) {
				skipForeign("key");
				continue;
			}
			this.events.valueStage(this.stage.apply(value, entry.command()));
		}
	}

	// only a foreign producer writes these here; failing on them would kill the thread on every replay
	private void skipForeign(String missing) {
		String source = RecordSource.of(this.context, "the owner-commands topic");
		logger.warn("Skipped a record without " + missing + " on " + source + ": ValueGuard never writes one there");
	}

}
