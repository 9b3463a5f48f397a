package io.valueguard.metrics;

import java.util.List;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.valueguard.kafka.DepartedProducers;
import io.valueguard.kafka.HeldBackOffsets;
import io.valueguard.kafka.OffsetsWatch;
import io.valueguard.kafka.StreamsClients;
import org.apache.kafka.streams.KafkaStreams;

import org.springframework.stereotype.Component;

/**
 * {@code valueguard_streams_running{application_id}}: 1 while a stage's streams client is RUNNING, 0 otherwise (not
 * started, rebalancing, shutting down, failed). Simpler to alert on than Kafka's numeric client-state. Beside it,
 * {@code valueguard_offsets_held_back_partitions{application_id, transaction}}: while a stage stays out of RUNNING,
 * how many of its partitions here wait for committed offsets the group coordinator holds back, with an open
 * transaction that may clear them ({@code open}) or none ({@code none}: they wait until the coordinator loads the group
 * anew). And {@code valueguard_departed_producers_fenced_total{application_id}}: the producers of instances that left
 * the stage's group with a transaction open that this instance fenced, so that their offsets and records were released
 * at once.
 */
@Component
class StreamsStateMetrics {

	StreamsStateMetrics(StreamsClients clients, OffsetsWatch offsets, DepartedProducers departed,
			MeterRegistry registry) {
		for (String store : List.of(StreamsClients.BINDINGS, StreamsClients.OWNERS)) {
			String applicationId = clients.applicationId(store);
			Gauge.builder("valueguard.streams.running", clients,
					(all) -> all.forStore(store).map(KafkaStreams::state).orElse(KafkaStreams.State.CREATED)
						== KafkaStreams.State.RUNNING ? 1 : 0)
				.description("1 while the stage's Kafka Streams client is RUNNING")
				.tag("application_id", applicationId)
				.register(registry);
			for (boolean open : new boolean[] { true, false }) {
				Gauge.builder("valueguard.offsets.held.back.partitions", offsets,
						(watch) -> heldBack(watch.heldBack(applicationId), open))
					.description("Partitions of the stage here whose committed offsets the group coordinator holds "
							+ "back as a transaction's, with an open transaction that may clear them or none")
					.tag("application_id", applicationId)
					.tag("transaction", open ? "open" : "none")
					.register(registry);
			}
			FunctionCounter.builder("valueguard.departed.producers.fenced", departed,
					(fencer) -> fencer.fenced(applicationId))
				.description("Producers of instances that left the stage's group with a transaction open, fenced "
						+ "by this instance so that what they held back was released at once")
				.tag("application_id", applicationId)
				.register(registry);
		}
	}

	private static int heldBack(HeldBackOffsets found, boolean open) {
		return (found.neverCleared() != open) ? found.partitions().size() : 0;
	}

}
