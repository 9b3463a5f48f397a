package io.valueguard;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

import io.valueguard.messages.Eviction;
import io.valueguard.claims.KeyStageTopology;
import io.valueguard.metrics.PipelineMetrics;
import io.valueguard.kafka.TopicProvisioner;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.owners.ValueStageTopology;
import io.valueguard.system.ValueGuardProperties;
import org.apache.kafka.streams.kstream.KStream;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The two stages as Spring Cloud Stream functions. Each becomes its own Kafka Streams application: {@code keyStage}
 * (inputs {@code keyStage-in-0}: claims, {@code keyStage-in-1}: eviction feedback) and {@code valueStage} (input
 * {@code valueStage-in-0}: owner commands). Both write their outputs themselves, with explicit serdes.
 */
@Configuration(proxyBeanMethods = false)
class StreamFunctions {

	// The provisioner parameter makes sure every topic exists, with co-partitioning checked, before any binding.
	@Bean
	BiConsumer<KStream<byte[], byte[]>, KStream<String, Eviction>> keyStage(ValueGuardProperties properties,
			PipelineMetrics events, TopicProvisioner provisioner) {
		return new KeyStageTopology(properties, events);
	}

	@Bean
	Consumer<KStream<String, OwnerCommand>> valueStage(ValueGuardProperties properties, PipelineMetrics events,
			TopicProvisioner provisioner) {
		return new ValueStageTopology(properties, events);
	}

}
