package io.valueguard.claims;

import java.util.Set;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.system.KeyValueStoreTable;
import io.valueguard.system.RecordSource;
import io.valueguard.system.StoreType;
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

	static ProcessorSupplier<String, KeyInput, String, KeyOutput> supplier(KeyStageEvents events,
			StoreType storeType) {
		StoreBuilder<KeyValueStore<String, KeyClaim>> store = Stores
			.keyValueStoreBuilder(storeType.supplier(STORE), Serdes.String(), new KeyClaim.Serde());
		return new ProcessorSupplier<>() {

			@Override
			public Processor<String, KeyInput, String, KeyOutput> get() {
				return new KeyStageProcessor(events);
			}

			@Override
			public Set<StoreBuilder<?>> stores() {
				return Set.of(store);
			}

		};
	}

	private static final Log logger = LogFactory.getLog(KeyStageProcessor.class);

	private final KeyStageEvents events;

	private @Nullable ProcessorContext<String, KeyOutput> context;

	private @Nullable KeyStage stage;

	/** Timestamp of the record being processed: every output carries it, so stream time flows on. */
	private long recordTimestamp;

	private KeyStageProcessor(KeyStageEvents events) {
		this.events = events;
	}

	@Override
	public void init(ProcessorContext<String, KeyOutput> context) {
		this.context = context;
		KeyValueStore<String, KeyClaim> store = context.getStateStore(STORE);
		this.stage = new KeyStage(new KeyValueStoreTable<>(store), new Effects());
	}

	@Override
	public void process(Record<String, KeyInput> record) {
		this.recordTimestamp = record.timestamp();
		KeyStage.Outcome outcome;
		if (record.value() instanceof KeyInput.Verdict verdict) {
			if (record.key() == null || verdict.eviction() == null) {
				// only a foreign producer writes these here; failing on them would kill the thread on every replay
				String source = RecordSource.of(this.context, "the eviction-feedback topic");
				logger.warn("Skipped a verdict without " + ((record.key() == null) ? "key" : "value") + " on " + source
						+ ": ValueGuard never writes one there");
				return;
			}
			outcome = this.stage.evict(record.key(), verdict.eviction(), this.context.currentSystemTimeMs());
		}
		else {
			outcome = this.stage.apply(record.key(), ((KeyInput.Claim) record.value()).value(), record.timestamp(),
					this.context.taskId().partition());
		}
		this.events.keyStage(outcome);
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
			// latency from the claim that decided the eviction: the winner's, or the late claim's own
			long decidedAt = (event.reason() == Eviction.Reason.SUPERSEDED) ? event.evictedByTimestamp()
					: event.claimTimestamp();
			KeyStageProcessor.this.events.evicted(event, event.evictionTimestamp() - decidedAt);
			emit(event.key(), new KeyOutput.Evicted(event), recordTimestamp);
		}

		@Override
		public void command(String value, OwnerCommand command) {
			emit(value, new KeyOutput.Command(command), command.timestamp());
		}

		private void emit(String key, KeyOutput output, long timestamp) {
			KeyStageProcessor.this.context.forward(new Record<>(key, output, timestamp));
		}

	}

}
