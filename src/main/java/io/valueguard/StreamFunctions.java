package io.valueguard;

import java.util.Map;
import java.util.function.Function;

import io.valueguard.claims.KeyStageTopology;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.kafka.ChangelogTopics;
import io.valueguard.kafka.TopicProvisioner;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.KeyPartitions;
import io.valueguard.messages.RulingBell;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.metrics.PipelineMetrics;
import io.valueguard.owners.ValueStageTopology;
import io.valueguard.store.ActivePartitions;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.processor.StreamPartitioner;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The two stages as Spring Cloud Stream functions; each becomes its own Kafka Streams application. {@code keyStage}
 * takes the claims ({@code keyStage-in-0}), batches of verdicts ({@code keyStage-in-1}) and claims rerouted to their
 * key's partition ({@code keyStage-in-2}) and returns bindings, eviction events, batches of owner commands, dead
 * letters and claims to reroute ({@code keyStage-out-0} to {@code -out-4});
 * {@code valueStage} takes batches of owner commands ({@code valueStage-in-0}) and returns batches of verdicts
 * ({@code valueStage-out-0}). Destinations and serdes are binding settings, derived in {@code application.yml} from
 * {@code valueguard.topics.*}.
 */
@Configuration(proxyBeanMethods = false)
class StreamFunctions {

	// The provisioner parameter makes sure every topic exists, with co-partitioning checked, before any binding.
	@Bean
	Function<KStream<byte[], byte[]>, Function<KStream<String, VerdictBatch>, Function<KStream<byte[], byte[]>,
			KStream<?, ?>[]>>> keyStage(ValueGuardProperties properties, PipelineMetrics events, RulingBell rulingBell,
					ActivePartitions activePartitions, TopicProvisioner provisioner) {
		return new KeyStageTopology(properties, events, rulingBell, activePartitions, provisioner.claimsPartitions(),
				provisioner.ownerCommandsPartitions());
	}

	@Bean
	Function<KStream<String, CommandBatch>, KStream<String, VerdictBatch>> valueStage(
			ValueGuardProperties properties, PipelineMetrics events, RulingBell rulingBell,
			ActivePartitions activePartitions, TopicProvisioner provisioner) {
		return new ValueStageTopology(properties, events, rulingBell, activePartitions);
	}

	/** The stores of each stage that have a changelog topic, created before the stages start. */
	@Bean
	ChangelogTopics.Stores changelogStores(ValueGuardProperties properties) {
		return new ChangelogTopics.Stores(Map.of(properties.keyStageApplicationId(), KeyStageTopology.changelogged(),
				properties.valueStageApplicationId(), ValueStageTopology.changelogged()));
	}

	/** Rung by both stages when they applied what a synchronous write may wait for; the API's wait loop hears it. */
	@Bean
	RulingBell rulingBell() {
		return new RulingBell();
	}

	/** Which partitions of each stage's store this instance's tasks process: lookups read them through rebalances. */
	@Bean
	ActivePartitions activePartitions() {
		return new ActivePartitions();
	}

	/** The {@code keyStage-out-2} binding's partitioner: each batch of commands to the partition it was made for. */
	@Bean
	StreamPartitioner<String, CommandBatch> commandPartitioner(TopicProvisioner provisioner) {
		return CommandBatch.partitioner(provisioner.ownerCommandsPartitions());
	}

	/** The {@code keyStage-out-4} binding's partitioner: each rerouted claims record to its key's partition. */
	@Bean
	StreamPartitioner<byte[], byte[]> reroutePartitioner(TopicProvisioner provisioner) {
		return KeyPartitions.byKey(provisioner.claimsPartitions());
	}

	/** The {@code valueStage-out-0} binding's partitioner: each batch of verdicts to its keys' claims partition. */
	@Bean
	StreamPartitioner<String, VerdictBatch> verdictPartitioner() {
		return VerdictBatch.PARTITIONER;
	}

}
