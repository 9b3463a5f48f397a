package io.valueguard.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.valueguard.kafka.StreamsClients;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * {@code valueguard_store_entries{store}}: how many entries the store partitions this instance is active for hold,
 * read on a schedule (RocksDB's estimate, exact for stores in memory). With {@code valueguard_entries_forgotten_total}
 * it shows whether retention keeps the state from growing. A store that cannot be read right now (a rebalance, a
 * restart) keeps its last reading.
 */
@Component
class StoreEntriesMetrics {

	private static final List<String> STORES = List.of(StreamsClients.BINDINGS, StreamsClients.OWNERS);

	private final StreamsClients clients;

	private final Map<String, AtomicLong> entries = new ConcurrentHashMap<>();

	StoreEntriesMetrics(StreamsClients clients, MeterRegistry registry) {
		this.clients = clients;
		for (String store : STORES) {
			AtomicLong count = new AtomicLong();
			this.entries.put(store, count);
			Gauge.builder("valueguard.store.entries", count, AtomicLong::get)
				.description("Entries in the store partitions this instance is active for (RocksDB's estimate)")
				.tag("store", store)
				.register(registry);
		}
	}

	@Scheduled(fixedDelayString = "${valueguard.query.lag-refresh-interval:1s}",
			initialDelayString = "${valueguard.query.lag-refresh-interval:1s}")
	void publish() {
		for (String store : STORES) {
			try {
				KafkaStreams streams = this.clients.queryable(store);
				long count = streams
					.store(StoreQueryParameters.fromNameAndType(store, QueryableStoreTypes.keyValueStore()))
					.approximateNumEntries();
				this.entries.get(store).set(count);
			}
			catch (InvalidStateStoreException ex) {
				// not queryable now: the last reading stands until it is
			}
		}
	}

}
