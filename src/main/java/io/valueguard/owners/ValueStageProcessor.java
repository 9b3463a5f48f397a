package io.valueguard.owners;

import java.util.Set;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.system.KeyValueStoreTable;
import io.valueguard.system.StoreType;
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

	private final ValueStageEvents events;

	private @Nullable ValueStage stage;

	private long recordTimestamp;

	private ValueStageProcessor(ValueStageEvents events) {
		this.events = events;
	}

	@Override
	public void init(ProcessorContext<String, Eviction> context) {
		KeyValueStore<String, Owner> store = context.getStateStore(STORE);
		this.stage = new ValueStage(new KeyValueStoreTable<>(store),
				(key, eviction) -> context.forward(new Record<>(key, eviction, this.recordTimestamp)));
	}

	@Override
	public void process(Record<String, OwnerCommand> record) {
		this.recordTimestamp = record.timestamp();
		this.events.valueStage(this.stage.apply(record.key(), record.value()));
	}

}
