package io.valueguard.metrics;

import java.util.List;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.valueguard.kafka.StreamsClients;
import org.apache.kafka.streams.KafkaStreams;

import org.springframework.stereotype.Component;

/**
 * {@code valueguard_streams_running{application_id}}: 1 while a stage's streams client is RUNNING, 0 otherwise (not
 * started, rebalancing, shutting down, failed). Simpler to alert on than Kafka's numeric client-state.
 */
@Component
class StreamsStateMetrics {

	StreamsStateMetrics(StreamsClients clients, MeterRegistry registry) {
		for (String store : List.of(StreamsClients.BINDINGS, StreamsClients.OWNERS)) {
			Gauge.builder("valueguard.streams.running", clients,
					(all) -> all.forStore(store).map(KafkaStreams::state).orElse(KafkaStreams.State.CREATED)
						== KafkaStreams.State.RUNNING ? 1 : 0)
				.description("1 while the stage's Kafka Streams client is RUNNING")
				.tag("application_id", clients.applicationId(store))
				.register(registry);
		}
	}

}
