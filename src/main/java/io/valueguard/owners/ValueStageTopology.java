package io.valueguard.owners;

import java.util.List;
import java.util.function.Function;

import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.RulingBell;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.store.ActivePartitions;
import io.valueguard.store.Retention;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * The value stage, partitioned by value: arbitrates every claim of a value in the {@code owners} store and returns
 * the eviction verdicts. It is the {@code valueStage} function bean ({@code valueStage-in-0}: batches of owner
 * commands, {@code valueStage-out-0}: batches of verdicts to the eviction-feedback topic, written with
 * {@link VerdictBatch#PARTITIONER}).
 */
public final class ValueStageTopology
		implements Function<KStream<String, CommandBatch>, KStream<String, VerdictBatch>> {

	private final ValueGuardProperties properties;

	private final ValueStageEvents events;

	private final RulingBell bell;

	private final ActivePartitions active;

	/**
	 * @param bell rung when the stage has ruled on a command that a synchronous write waits for
	 * @param active told which partitions of the {@code owners} store this instance's tasks process
	 */
	public ValueStageTopology(ValueGuardProperties properties, ValueStageEvents events, RulingBell bell,
			ActivePartitions active) {
		this.properties = properties;
		this.events = events;
		this.bell = bell;
		this.active = active;
	}

	/**
	 * The stores of the stage's tasks that have a changelog topic, {@code <application id>-<store>-changelog}; start-up
	 * creates the topics before the stage starts ({@code kafka/ChangelogTopics}).
	 */
	public static List<String> changelogged() {
		return ValueStageProcessor.changelogged();
	}

	@Override
	public KStream<String, VerdictBatch> apply(KStream<String, CommandBatch> commands) {
		return commands.process(
				ValueStageProcessor.supplier(this.events, this.bell, this.active, this.properties.store(),
						this.properties.policy(),
						Retention.of(this.properties.retention()), this.properties.streams().promptCommitInterval()),
				Named.as("value-stage"));
	}

}
