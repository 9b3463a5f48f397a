package io.valueguard.messages;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.utils.Utils;

/** Where Kafka's default partitioner puts a record with a String key, as producers and Kafka Streams compute it. */
public final class KeyPartitions {

	private KeyPartitions() {
	}

	public static int of(String key, int partitions) {
		return Utils.toPositive(Utils.murmur2(key.getBytes(StandardCharsets.UTF_8))) % partitions;
	}

}
