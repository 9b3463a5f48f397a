package io.valueguard.owners;

import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.system.ValueGuardProperties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The value stage, partitioned by value: arbitrates every claim of a value in the {@code owners} store and sends each
 * eviction back to the exact claims partition of the evicted key. It is the {@code valueStage} function bean.
 */
public final class ValueStageTopology implements Consumer<KStream<String, OwnerCommand>> {

	/** Routes a verdict to the partition its key was read from, whatever partitioner produced the claims. */
	static final StreamPartitioner<String, Eviction> TO_KEY_PARTITION = (topic, key, eviction,
			numPartitions) -> Optional.of(Set.of(eviction.keyPartition()));

	private final ValueGuardProperties properties;

	private final ValueStageEvents events;

	public ValueStageTopology(ValueGuardProperties properties, ValueStageEvents events) {
		this.properties = properties;
		this.events = events;
	}

	@Override
	public void accept(KStream<String, OwnerCommand> commands) {
		commands
			.process(ValueStageProcessor.supplier(this.events, this.properties.store().type()), Named.as("value-stage"))
			.to(this.properties.evictionFeedbackTopic(), Produced.with(Serdes.String(), new Eviction.Serde())
				.withStreamPartitioner(TO_KEY_PARTITION)
				.withName("eviction-feedback"));
	}

}
