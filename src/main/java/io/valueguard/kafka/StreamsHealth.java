package io.valueguard.kafka;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.cloud.stream.binder.kafka.streams.KafkaStreamsRegistry;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Health of both stages' Kafka Streams clients. Readiness ({@code streamsReadiness}) is UP only when every client is
 * RUNNING, so that no traffic reaches an instance whose stores cannot answer. Liveness ({@code streamsLiveness})
 * stays UP through rebalances and restores and goes DOWN only when a client has failed for good, which only a
 * restart can cure.
 */
@Configuration(proxyBeanMethods = false)
class StreamsHealth {

	@Bean
	HealthIndicator streamsReadinessHealthIndicator(KafkaStreamsRegistry registry) {
		return () -> check(registry, (state) -> state == KafkaStreams.State.RUNNING);
	}

	@Bean
	HealthIndicator streamsLivenessHealthIndicator(KafkaStreamsRegistry registry) {
		return () -> check(registry, (state) -> state != KafkaStreams.State.ERROR
				&& state != KafkaStreams.State.PENDING_ERROR && state != KafkaStreams.State.NOT_RUNNING);
	}

	private static Health check(KafkaStreamsRegistry registry, Predicate<KafkaStreams.State> healthy) {
		List<StreamsBuilderFactoryBean> factories = registry.streamsBuilderFactoryBeans();
		if (factories.isEmpty()) {
			return Health.down().withDetail("reason", "no Kafka Streams client has started yet").build();
		}
		Map<String, String> states = new LinkedHashMap<>();
		boolean up = true;
		for (StreamsBuilderFactoryBean factory : factories) {
			KafkaStreams streams = factory.getKafkaStreams();
			String applicationId = (factory.getStreamsConfiguration() != null)
					? factory.getStreamsConfiguration().getProperty(StreamsConfig.APPLICATION_ID_CONFIG) : "unknown";
			KafkaStreams.State state = (streams != null) ? streams.state() : KafkaStreams.State.CREATED;
			states.put(applicationId, state.name());
			up &= healthy.test(state);
		}
		return (up ? Health.up() : Health.down()).withDetails(Map.copyOf(states)).build();
	}

}
