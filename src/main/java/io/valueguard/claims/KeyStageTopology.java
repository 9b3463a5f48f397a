package io.valueguard.claims;

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
 * The key stage, partitioned like the claims: validates input (invalid records to the DLQ), sends each claim that
 * arrived on another partition than its key's to its key's partition, merges the claims with the value stage's
 * eviction verdicts, applies both to the {@code bindings} store, and returns what comes out. It is the
 * {@code keyStage} function bean, curried over its three inputs ({@code keyStage-in-0}: claims,
 * {@code keyStage-in-1}: verdicts, {@code keyStage-in-2}: rerouted claims); its outputs are the array it returns,
 * bound in order to {@code keyStage-out-0} to {@code -out-4}, whose destinations and serdes the binding configuration
 * gives. Tests apply it to a plain {@link org.apache.kafka.streams.StreamsBuilder}.
 */
public final class KeyStageTopology implements Function<KStream<byte[], byte[]>,
		Function<KStream<String, VerdictBatch>, Function<KStream<byte[], byte[]>, KStream<?, ?>[]>>> {

	/** Output {@code keyStage-out-0}: key to the value it holds now, a tombstone when it holds nothing. */
	public static final int BINDINGS = 0;

	/** Output {@code keyStage-out-1}: one {@link EvictionEvent} per eviction, keyed by the evicted key. */
	public static final int EVICTIONS = 1;

	/**
	 * Output {@code keyStage-out-2}: {@link CommandBatch}es to the value stage, each for one owner-commands partition,
	 * written with {@link CommandBatch#partitioner}.
	 */
	public static final int OWNER_COMMANDS = 2;

	/** Output {@code keyStage-out-3}: invalid input records, bytes as they came, the reason in headers. */
	public static final int DLQ = 3;

	/**
	 * Output {@code keyStage-out-4}: claims records that arrived on another partition than their key's, bytes as they
	 * came, to the rerouted-claims topic, written with {@link io.valueguard.messages.KeyPartitions#byKey}.
	 */
	public static final int REROUTED = 4;

	private final ValueGuardProperties properties;

	private final KeyStageEvents events;

	private final RulingBell bell;

	private final ActivePartitions active;

	private final int claimsPartitions;

	private final int commandPartitions;

	/**
	 * @param bell rung when the stage has applied something a synchronous write may be waiting for
	 * @param active told which partitions of the {@code bindings} store this instance's tasks process
	 * @param claimsPartitions partition count of the claims topic, over which a key's partition is counted
	 * @param commandPartitions partition count of the owner-commands topic, which batches of commands are made for
	 */
	public KeyStageTopology(ValueGuardProperties properties, KeyStageEvents events, RulingBell bell,
			ActivePartitions active, int claimsPartitions, int commandPartitions) {
		this.properties = properties;
		this.events = events;
		this.bell = bell;
		this.active = active;
		this.claimsPartitions = claimsPartitions;
		this.commandPartitions = commandPartitions;
	}

	/**
	 * The stores of the stage's tasks that have a changelog topic, {@code <application id>-<store>-changelog}; start-up
	 * creates the topics before the stage starts ({@code kafka/ChangelogTopics}).
	 */
	public static List<String> changelogged() {
		return KeyStageProcessor.changelogged();
	}

	@Override
	public Function<KStream<String, VerdictBatch>, Function<KStream<byte[], byte[]>, KStream<?, ?>[]>> apply(
			KStream<byte[], byte[]> claims) {
		return (verdicts) -> (rerouted) -> outputs(claims, verdicts, rerouted);
	}

	private KStream<?, ?>[] outputs(KStream<byte[], byte[]> claims, KStream<String, VerdictBatch> verdicts,
			KStream<byte[], byte[]> rerouted) {
		ClaimValidator validator = new ClaimValidator(this.properties.limits(),
				ClaimFormat.of(this.properties.claims()));
		// Raw claims and wrapped verdicts reach one processor, which validates, decides and forwards each output to
		// the node that leads to its topic: every node a claim passes costs Kafka Streams' per-record work
		// (docs/benchmarks.md). A verdict batch is wrapped because a foreign record without a value must not pass
		// for a claims tombstone. Rerouted claims, raw as they came, join the verdicts first: a claim passes one merge.
		KStream<Object, Object> feedback = untyped(verdicts.mapValues(KeyStageProcessor.Feedback::new,
				Named.as("verdicts")))
			.merge(untyped(rerouted), Named.as("verdicts-and-rerouted"));
		KStream<Object, Object> applied = untyped(claims).merge(feedback, Named.as("key-inputs"))
			.process(KeyStageProcessor.supplier(validator, this.events, this.bell, this.active, this.properties.store(),
					this.properties.policy(), Retention.of(this.properties.retention()),
					new KeyStageProcessor.Placement(this.claimsPartitions, this.properties.reroutedClaimsTopic()),
					this.commandPartitions, this.properties.streams().promptCommitInterval()),
					Named.as("key-stage"));
		KStream<?, ?>[] outputs = new KStream<?, ?>[5];
		outputs[BINDINGS] = output(applied, KeyStageProcessor.TO_BINDINGS);
		outputs[EVICTIONS] = output(applied, KeyStageProcessor.TO_EVICTIONS);
		outputs[OWNER_COMMANDS] = output(applied, KeyStageProcessor.TO_OWNER_COMMANDS);
		outputs[DLQ] = output(applied, KeyStageProcessor.TO_DLQ);
		outputs[REROUTED] = output(applied, KeyStageProcessor.TO_REROUTED);
		return outputs;
	}

	/**
	 * A node that passes on what the key stage forwards to it by name, and whose stream the binding writes to one
	 * topic: a record reaches only the output it is for.
	 */
	private static KStream<Object, Object> output(KStream<Object, Object> applied, String name) {
		return applied.filter((key, value) -> true, Named.as(name));
	}

	// the records' types differ by source; the processor tells them apart, and each output's serdes fit what it gets
	@SuppressWarnings("unchecked")
	private static KStream<Object, Object> untyped(KStream<?, ?> stream) {
		return (KStream<Object, Object>) stream;
	}

}
