package io.valueguard.routing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.valueguard.messages.KeyPartitions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

/**
 * The last assignment of a store's partitions that this instance saw while its client was RUNNING, so that a lookup
 * can still be forwarded while the client is not (restarting after an error, rebalancing away). It is a guess: the
 * instance it forwards to checks the partition against its own metadata and never answers for a partition it does
 * not hold, so a stale guess costs a 503, never a wrong answer.
 */
final class KnownAssignment {

	private static final long REFRESH_NANOS = 1_000_000_000L;

	/** Hosts by partition: the active first, then the standbys. */
	private record Snapshot(int partitions, Map<Integer, List<HostInfo>> hosts, long takenAtNanos) {

	}

	private final Map<String, Snapshot> snapshots = new ConcurrentHashMap<>();

	/** Remembers the store's assignment, at most once a second, and only from a client that is RUNNING. */
	void remember(String store, KafkaStreams streams) {
		Snapshot last = this.snapshots.get(store);
		long now = System.nanoTime();
		if ((last != null && now - last.takenAtNanos() < REFRESH_NANOS)
				|| streams.state() != KafkaStreams.State.RUNNING) {
			return;
		}
		try {
			Map<Integer, List<HostInfo>> hosts = new HashMap<>();
			int partitions = 0;
			for (StreamsMetadata metadata : streams.streamsMetadataForStore(store)) {
				for (var partition : metadata.topicPartitions()) {
					hosts.computeIfAbsent(partition.partition(), (p) -> new ArrayList<>()).add(0, metadata.hostInfo());
					partitions = Math.max(partitions, partition.partition() + 1);
				}
				for (var partition : metadata.standbyTopicPartitions()) {
					hosts.computeIfAbsent(partition.partition(), (p) -> new ArrayList<>()).add(metadata.hostInfo());
				}
			}
			if (partitions > 0) {
				this.snapshots.put(store, new Snapshot(partitions, hosts, now));
			}
		}
		catch (IllegalStateException ex) {
			// stopped running meanwhile: keep the last snapshot
		}
	}

	/** Where the key's partition lived when last seen, the active host first; empty when never seen. */
	List<HostInfo> hostsOf(String store, String key) {
		Snapshot snapshot = this.snapshots.get(store);
		if (snapshot == null) {
			return List.of();
		}
		// the default partitioner's choice, as Kafka Streams makes it for the store's source topic
		int partition = KeyPartitions.of(key, snapshot.partitions());
		Set<HostInfo> hosts = new LinkedHashSet<>(snapshot.hosts().getOrDefault(partition, List.of()));
		return List.copyOf(hosts);
	}

}
