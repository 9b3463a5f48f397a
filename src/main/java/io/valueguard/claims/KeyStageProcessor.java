package io.valueguard.claims;

import java.util.Set;

import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.system.KeyPartitions;
import io.valueguard.system.Outbox;
import io.valueguard.system.RecordSource;
import io.valueguard.system.StoreType;
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

/** Runs {@link KeyStage} in a stream task, over the task's partition of the {@code bindings} store. */
final class KeyStageProcessor implements Processor<String, KeyInput, String, KeyOutput> {

	/** Name of the key stage's store: key to its current claim. */
	static final String STORE = "bindings";

	/** Name of the store that holds the task's writes to {@link #STORE} until it commits. */
	static final String PENDING_WRITES = "bindings-pending-writes";

	/** Name of the store that holds the task's commands until they go out in batches. */
	static final String OUTBOX = "owner-command-outbox";

	static ProcessorSupplier<String, KeyInput, String, KeyOutput> supplier(KeyStageEvents events,
			StoreType storeType, int commandPartitions) {
		StoreBuilder<KeyValueStore<String, KeyClaim>> store = Stores
			.keyValueStoreBuilder(storeType.supplier(STORE), Serdes.String(), new KeyClaim.Serde());
		StoreBuilder<WriteBehindTable<String, KeyClaim>> pendingWrites = WriteBehindTable.builder(PENDING_WRITES);
		StoreBuilder<Outbox<CommandBatch.Entry>> outbox = Outbox.builder(OUTBOX);
		return new ProcessorSupplier<>() {

			@Override
			public Processor<String, KeyInput, String, KeyOutput> get() {
				return new KeyStageProcessor(events, commandPartitions);
			}

			@Override
			public Set<StoreBuilder<?>> stores() {
				return Set.of(store, pendingWrites, outbox);
			}

		};
	}

	private static final Log logger = LogFactory.getLog(KeyStageProcessor.class);

	private final KeyStageEvents events;

	private final int commandPartitions;

	private @Nullable ProcessorContext<String, KeyOutput> context;

	private @Nullable KeyStage stage;

	private @Nullable Outbox<CommandBatch.Entry> outbox;

	private KeyStageProcessor(KeyStageEvents events, int commandPartitions) {
		this.events = events;
		this.commandPartitions = commandPartitions;
	}

	@Override
	public void init(ProcessorContext<String, KeyOutput> context) {
		this.context = context;
		WriteBehindTable<String, KeyClaim> bindings = context.getStateStore(PENDING_WRITES);
		bindings.connect(context, context.getStateStore(STORE));
		this.stage = new KeyStage(bindings, new Effects());
		this.outbox = context.getStateStore(OUTBOX);
		this.outbox.connect(context, (partition, entries) -> {
			CommandBatch batch = new CommandBatch(partition, entries);
			context.forward(new Record<>(null, new KeyOutput.Commands(batch), batch.timestamp()));
		});
	}

	@Override
	public void process(Record<String, KeyInput> record) {
		if (record.value() instanceof KeyInput.Verdicts verdicts) {
			if (verdicts.batch() == null) {
				skipForeign(record, "value");
				return;
			}
			long now = this.context.currentSystemTimeMs();
			for (VerdictBatch.Entry entry : verdicts.batch().entries()) {
				// a single verdict from before batching names its key in the record key
				String key = (entry.key() != null) ? entry.key() : record.key();
				if (key == null) {
					skipForeign(record, "key");
					continue;
				}
				this.events.keyStage(this.stage.evict(key, entry.eviction(), now));
			}
		}
		else {
			this.events.keyStage(this.stage.apply(record.key(), ((KeyInput.Claim) record.value()).value(),
					record.timestamp(), this.context.taskId().partition()));
		}
	}

	// only a foreign producer writes these here; failing on them would kill the thread on every replay
	private void skipForeign(Record<String, KeyInput> record, String missing) {
		String source = RecordSource.of(this.context, "the eviction-feedback topic");
		logger.warn("Skipped a verdict without " + missing + " on " + source + ": ValueGuard never writes one there");
	}

	private final class Effects implements KeyStage.Effects {

		@Override
		public void bound(String key, String value, long timestamp) {
			emit(key, new KeyOutput.Binding(value), timestamp);
		}

		@Override
		public void unbound(String key, long timestamp) {
			emit(key, new KeyOutput.Binding(null), timestamp);
		}

		@Override
		public void evicted(EvictionEvent event) {
			// the claim that decided the eviction: the winner's, or the late claim's own
			long decidedAt = (event.reason() == Eviction.Reason.SUPERSEDED) ? event.evictedByTimestamp()
					: event.claimTimestamp();
			KeyStageProcessor.this.events.evicted(event, event.evictionTimestamp() - decidedAt);
			emit(event.key(), new KeyOutput.Evicted(event), decidedAt);
		}

		@Override
		public void command(String value, OwnerCommand command) {
			int partition = KeyPartitions.of(value, KeyStageProcessor.this.commandPartitions);
			KeyStageProcessor.this.outbox.add(partition, new CommandBatch.Entry(value, command),
					CommandBatch.sizeOf(value, command));
		}

		private void emit(String key, KeyOutput output, long timestamp) {
			KeyStageProcessor.this.context.forward(new Record<>(key, output, timestamp));
		}

	}

}
