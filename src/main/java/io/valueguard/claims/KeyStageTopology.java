package io.valueguard.claims;

import java.util.function.BiConsumer;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.system.ValueGuardProperties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.kstream.Branched;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Named;
import org.apache.kafka.streams.kstream.Produced;

/**
 * The key stage, partitioned like the claims: validates input (invalid records to the DLQ), merges it with the value
 * stage's eviction verdicts, applies both to the {@code bindings} store, and routes what comes out to the bindings,
 * evictions and owner-commands topics. It is the {@code keyStage} function bean; tests call it on a plain
 * {@link org.apache.kafka.streams.StreamsBuilder}.
 */
public final class KeyStageTopology implements BiConsumer<KStream<byte[], byte[]>, KStream<String, Eviction>> {

	private final ValueGuardProperties properties;

	private final KeyStageEvents events;

	public KeyStageTopology(ValueGuardProperties properties, KeyStageEvents events) {
		this.properties = properties;
		this.events = events;
	}

	@Override
	public void accept(KStream<byte[], byte[]> claims, KStream<String, Eviction> verdicts) {
		ValueGuardProperties.Topics topics = this.properties.topics();
		ClaimValidator validator = new ClaimValidator(this.properties.limits(),
				ClaimFormat.of(this.properties.claims()));
		KStream<String, KeyInput> accepted = claims
			.process(() -> new ClaimIntakeProcessor(validator, this.events), Named.as("claim-intake"))
			.split(Named.as("intake-"))
			.branch((key, intake) -> !intake.verdict().valid(), Branched.withConsumer((rejected) -> rejected
				.mapValues(ClaimIntakeProcessor.Intake::raw, Named.as("dlq-value"))
				.to(topics.dlq(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()).withName("dlq"))))
			.defaultBranch(Branched.as("accepted"))
			.get("intake-accepted")
			.map((rawKey, intake) -> KeyValue.pair(intake.verdict().key(),
					(KeyInput) new KeyInput.Claim(intake.verdict().value())), Named.as("decoded-claims"));

		accepted.merge(verdicts.mapValues((eviction) -> (KeyInput) new KeyInput.Verdict(eviction), Named.as("verdicts")),
				Named.as("key-inputs"))
			.process(KeyStageProcessor.supplier(this.events, this.properties.store().type()), Named.as("key-stage"))
			.split(Named.as("key-stage-"))
			.branch((key, output) -> output instanceof KeyOutput.Binding, Branched.withConsumer((bindings) -> bindings
				.mapValues((output) -> ((KeyOutput.Binding) output).value(), Named.as("binding-values"))
				.to(topics.bindings(), Produced.with(Serdes.String(), Serdes.String()).withName("bindings"))))
			.branch((key, output) -> output instanceof KeyOutput.Evicted, Branched.withConsumer((evictions) -> evictions
				.mapValues((output) -> ((KeyOutput.Evicted) output).event(), Named.as("eviction-events"))
				.to(topics.evictions(), Produced.with(Serdes.String(), new EvictionEventSerde()).withName("evictions"))))
			.defaultBranch(Branched.withConsumer((commands) -> commands
				.mapValues((output) -> ((KeyOutput.Command) output).command(), Named.as("owner-command-values"))
				.to(this.properties.ownerCommandsTopic(),
						Produced.with(Serdes.String(), new OwnerCommand.Serde()).withName("owner-commands"))));
	}

}
