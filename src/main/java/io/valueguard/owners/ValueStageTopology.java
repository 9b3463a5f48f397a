package io.valueguard.owners;

import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.system.ValueGuardProperties;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.processor.StreamPartitioner;

/**
 * The value stage, partitioned by value: arbitrates every claim of a value in the {@code owners} store and returns
 * the eviction verdicts. It is the {@code valueStage} function bean ({@code valueStage-in-0}: owner commands,
 * {@code valueStage-out-0}: verdicts to the eviction-feedback topic, written with {@link #VERDICT_PARTITIONER}).
 */
public final class ValueStageTopology implements Function<KStream<String, OwnerCommand>, KStream<String, Eviction>> {

	/**
	 * Routes a verdict to the claims partition its key was read from, whatever partitioner produced the claims: the
	 * {@code valueStage-out-0} binding's stream partitioner.
	 */
	public static final StreamPartitioner<String, Eviction> VERDICT_PARTITIONER = (topic, key, eviction,
			numPartitions) -> Optional.of(Set.of(eviction.keyPartition()));

	private final ValueGuardProperties properties;

	private final ValueStageEvents events;

	public ValueStageTopology(ValueGuardProperties properties, ValueStageEvents events) {
		this.properties = properties;
		this.events = events;
	}

	@Override
	public KStream<String, Eviction> apply(KStream<String, OwnerCommand> commands) {
		return commands.process(ValueStageProcessor.supplier(this.events, this.properties.store().type()),
				Named.as("value-stage"));
	}

}
