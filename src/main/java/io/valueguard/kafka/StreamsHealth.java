package io.valueguard.kafka;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.valueguard.config.ReadinessProperties;
import org.apache.kafka.streams.KafkaStreams;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Health of both stages' Kafka Streams clients. Readiness ({@code streamsReadiness}) is UP only when every client is
 * RUNNING and every active store partition has restored to within {@code valueguard.readiness.max-restore-lag}
 * records, so that no traffic reaches an instance whose stores cannot answer. Liveness ({@code streamsLiveness})
 * stays UP through rebalances, restores and a client's own restarts ({@link StreamsSupervisor}), and goes DOWN only
 * when {@code valueguard.streams.max-restarts} restarts in a row have failed: a process restart is the last resort.
 */
@Configuration(proxyBeanMethods = false)
class StreamsHealth {

	@Bean
	HealthIndicator streamsReadinessHealthIndicator(StreamsClients clients, StoreLags lags,
			ReadinessProperties readiness) {
		return () -> {
			Health states = check(clients, (state) -> state == KafkaStreams.State.RUNNING);
			if (!states.getStatus().equals(org.springframework.boot.health.contributor.Status.UP)) {
				return states;
			}
			StoreLags.Snapshot snapshot = lags.snapshot();
			long age = System.currentTimeMillis() - snapshot.takenAtMillis();
			if (!snapshot.complete() || age > readiness.maxLagAge().toMillis()) {
				return Health.down().withDetail("reason", "waiting for a fresh reading of store lags").build();
			}
			List<String> restoring = snapshot.lags()
				.stream()
				.filter((lag) -> lag.active() && lag.offsetLag() > readiness.maxRestoreLag())
				.map((lag) -> lag.store() + "-" + lag.partition() + " behind by " + lag.offsetLag())
				.toList();
			if (!restoring.isEmpty()) {
				return Health.down().withDetail("restoring", restoring).build();
			}
			return states;
		};
	}

	@Bean
	HealthIndicator streamsLivenessHealthIndicator(StreamsClients clients, StreamsSupervisor supervisor) {
		return () -> {
			Health states = check(clients, (state) -> true);
			List<String> givenUp = supervisor.givenUp();
			if (!givenUp.isEmpty()) {
				List<String> refusals = givenUp.stream()
					.filter((id) -> supervisor.refusal(id) != null)
					.map((id) -> id + ": " + supervisor.refusal(id))
					.toList();
				return Health.down()
					.withDetails(states.getDetails())
					.withDetail("reason", refusals.isEmpty() ? "restarts failed in a row: " + givenUp
							: "Kafka refused an operation (missing ACL, docs/security.md): " + refusals)
					.build();
			}
			return states;
		};
	}

	private static Health check(StreamsClients clients, Predicate<KafkaStreams.State> healthy) {
		List<StreamsBuilderFactoryBean> factories = clients.all();
		if (factories.isEmpty()) {
			return Health.down().withDetail("reason", "no Kafka Streams client has started yet").build();
		}
		Map<String, String> states = new LinkedHashMap<>();
		boolean up = true;
		for (StreamsBuilderFactoryBean factory : factories) {
			KafkaStreams streams = factory.getKafkaStreams();
			String applicationId = StreamsClients.applicationIdOf(factory);
			KafkaStreams.State state = (streams != null) ? streams.state() : KafkaStreams.State.CREATED;
			states.put(applicationId, state.name());
			up &= healthy.test(state);
		}
		return (up ? Health.up() : Health.down()).withDetails(Map.copyOf(states)).build();
	}

}
