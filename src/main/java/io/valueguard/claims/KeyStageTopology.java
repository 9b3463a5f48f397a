package io.valueguard.claims;

import java.util.Map;
import java.util.function.Function;

import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.system.ValueGuardProperties;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;

/**
 * The key stage, partitioned like the claims: validates input (invalid records to the DLQ), merges it with the value
 * stage's eviction verdicts, applies both to the {@code bindings} store, and returns what comes out. It is the
 * {@code keyStage} function bean, curried over its two inputs ({@code keyStage-in-0}: claims, {@code keyStage-in-1}:
 * verdicts); its outputs are the array it returns, bound in order to {@code keyStage-out-0} to {@code -out-3}, whose
 * destinations and serdes the binding configuration gives. Tests apply it to a plain
 * {@link org.apache.kafka.streams.StreamsBuilder}.
 */
public final class KeyStageTopology
		implements Function<KStream<byte[], byte[]>, Function<KStream<String, VerdictBatch>, KStream<?, ?>[]>> {

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

	private final ValueGuardProperties properties;

	private final KeyStageEvents events;

	private final int commandPartitions;

	/** @param commandPartitions partition count of the owner-commands topic, which batches of commands are made for */
	public KeyStageTopology(ValueGuardProperties properties, KeyStageEvents events, int commandPartitions) {
		this.properties = properties;
		this.events = events;
		this.commandPartitions = commandPartitions;
	}

	@Override
	public Function<KStream<String, VerdictBatch>, KStream<?, ?>[]> apply(KStream<byte[], byte[]> claims) {
		return (verdicts) -> outputs(claims, verdicts);
	}

	private KStream<?, ?>[] outputs(KStream<byte[], byte[]> claims, KStream<String, VerdictBatch> verdicts) {
		ClaimValidator validator = new ClaimValidator(this.properties.limits(),
				ClaimFormat.of(this.properties.claims()));
		Map<String, KStream<byte[], ClaimIntakeProcessor.Intake>> intake = claims
			.process(() -> new ClaimIntakeProcessor(validator, this.events), Named.as("claim-intake"))
			.split(Named.as("intake-"))
			.branch((key, record) -> !record.verdict().valid(), Branched.as("rejected"))
			.defaultBranch(Branched.as("accepted"));
		KStream<byte[], byte[]> dlq = intake.get("intake-rejected")
			.mapValues(ClaimIntakeProcessor.Intake::raw, Named.as("dlq-value"));
		KStream<String, KeyInput> accepted = intake.get("intake-accepted")
			.map((rawKey, record) -> KeyValue.pair(record.verdict().key(),
					(KeyInput) new KeyInput.Claim(record.verdict().value())), Named.as("decoded-claims"));

		Map<String, KStream<String, KeyOutput>> applied = accepted
			.merge(verdicts.mapValues((batch) -> (KeyInput) new KeyInput.Verdicts(batch), Named.as("verdicts")),
					Named.as("key-inputs"))
			.process(KeyStageProcessor.supplier(this.events, this.properties.store().type(), this.commandPartitions),
					Named.as("key-stage"))
			.split(Named.as("key-stage-"))
			.branch((key, output) -> output instanceof KeyOutput.Binding, Branched.as("bindings"))
			.branch((key, output) -> output instanceof KeyOutput.Evicted, Branched.as("evictions"))
			.defaultBranch(Branched.as("commands"));

		KStream<?, ?>[] outputs = new KStream<?, ?>[4];
		outputs[BINDINGS] = applied.get("key-stage-bindings")
			.mapValues((output) -> ((KeyOutput.Binding) output).value(), Named.as("binding-values"));
		outputs[EVICTIONS] = applied.get("key-stage-evictions")
			.mapValues((output) -> ((KeyOutput.Evicted) output).event(), Named.as("eviction-events"));
		outputs[OWNER_COMMANDS] = applied.get("key-stage-commands")
			.mapValues((output) -> ((KeyOutput.Commands) output).batch(), Named.as("owner-command-values"));
		outputs[DLQ] = dlq;
		return outputs;
	}

}
