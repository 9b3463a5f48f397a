package io.valueguard.messages;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.streams.processor.StreamPartitioner;

/** Where Kafka's default partitioner puts a record with a String key, as producers and Kafka Streams compute it. */
public final class KeyPartitions {

	private KeyPartitions() {
	}

	public static int of(String key, int partitions) {
		return of(key.getBytes(StandardCharsets.UTF_8), partitions);
	}

	/** The partition of a key as its producer serialized it: a String key's UTF-8 bytes. */
	public static int of(byte[] key, int partitions) {
		return Utils.toPositive(Utils.murmur2(key)) % partitions;
	}

	/**
	 * The rerouted-claims sink's partitioner: each claims record, key and value as they came, to its key's partition,
	 * counted over the claims topic's partitions as seen at start-up. The topic is partitioned like the claims; a
	 * different count means partitions were added, and a key would be sent away from its state: that stops the stream.
	 */
	public static StreamPartitioner<byte[], byte[]> byKey(int partitions) {
		return (topic, key, value, numPartitions) -> {
			requireStartCount(topic, numPartitions, partitions, "keys would map away from the state that holds them");
			return Optional.of(Set.of(of(key, partitions)));
		};
	}

	/**
	 * Stops the stream when an internal topic no longer has the partition count ValueGuard started with: partitions
	 * were added, and what its records name would map away from its state ({@code away} says which state).
	 */
	static void requireStartCount(String topic, int numPartitions, int partitions, String away) {
		if (numPartitions != partitions) {
			throw new IllegalStateException(("Topic '%s' has %d partitions, but ValueGuard started with %d. "
					+ "Partitions must never be added to an internal topic: %s. To start over, use a new "
					+ "valueguard.application-id, which rebuilds the state from the claims topic.")
				.formatted(topic, numPartitions, partitions, away));
		}
	}

}
