package io.valueguard.owners;

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

/** Runs {@link ValueStage} in a stream task, over the task's partition of the {@code owners} store. */
final class ValueStageProcessor implements Processor<String, OwnerCommand, String, Eviction> {

	/** Name of the value stage's store: value to its top claim. */
	static final String STORE = "owners";

	static ProcessorSupplier<String, OwnerCommand, String, Eviction> supplier(ValueStageEvents events,
			StoreType storeType) {
		StoreBuilder<KeyValueStore<String, Owner>> store = Stores
			.keyValueStoreBuilder(storeType.supplier(STORE), Serdes.String(), new Owner.Serde());
		return new ProcessorSupplier<>() {

			@Override
			public Processor<String, OwnerCommand, String, Eviction> get() {
				return new ValueStageProcessor(events);
			}

			@Override
			public Set<StoreBuilder<?>> stores() {
				return Set.of(store);
			}

		};
	}

	private static final Log logger = LogFactory.getLog(ValueStageProcessor.class);

	private final ValueStageEvents events;

	private @Nullable ProcessorContext<String, Eviction> context;

	private @Nullable ValueStage stage;

	private long recordTimestamp;

	private ValueStageProcessor(ValueStageEvents events) {
		this.events = events;
	}

	@Override
	public void init(ProcessorContext<String, Eviction> context) {
		this.context = context;
		KeyValueStore<String, Owner> store = context.getStateStore(STORE);
		this.stage = new ValueStage(new KeyValueStoreTable<>(store),
				(key, eviction) -> context.forward(new Record<>(key, eviction, this.recordTimestamp)));
	}

	@Override
	public void process(Record<String, OwnerCommand> record) {
		if (record.key() == null || record.value() == null) {
			// only a foreign producer writes these here; failing on them would kill the thread on every replay
			String source = RecordSource.of(this.context, "the owner-commands topic");
			logger.warn("Skipped a record without " + ((record.key() == null) ? "key" : "value") + " on " + source
					+ ": ValueGuard never writes one there");
			return;
		}
		this.recordTimestamp = record.timestamp();
		this.events.valueStage(this.stage.apply(record.key(), record.value()));
	}

}
