package io.valueguard.benchmark;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * What an application's output topic says once it has caught up, read as a table (each key's last record, a tombstone
 * deletes): key to value, how many values two or more keys hold, and how far it is from the rule's bindings.
 */
record Table(Map<String, String> bindings) {

	static final Table EMPTY = new Table(Map.of());

	/** Reads {@code topic} from its start to its end, committed records only. */
	static Table read(String bootstrapServers, String topic) {
		Map<String, String> bindings = new HashMap<>();
		try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ConsumerConfig.ISOLATION_LEVEL_CONFIG,
				"read_committed", ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 10_000), new StringDeserializer(),
				new StringDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(topic)
				.stream()
				.map((PartitionInfo info) -> new TopicPartition(topic, info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
			while (partitions.stream().anyMatch((partition) -> consumer.position(partition) < ends.get(partition))) {
				for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
					if (record.value() == null) {
						bindings.remove(record.key());
					}
					else {
						bindings.put(record.key(), record.value());
					}
				}
			}
		}
		return new Table(bindings);
	}

	/** Values that two or more keys hold: each is a broken rule. */
	long sharedValues() {
		Map<String, Integer> holders = new HashMap<>();
		this.bindings.values().forEach((value) -> holders.merge(value, 1, Integer::sum));
		return holders.values().stream().filter((count) -> count > 1).count();
	}

	/** Keys bound to another value than the rule's, or to none where the rule binds one, or the other way round. */
	String differencesFrom(@Nullable Map<String, String> rule) {
		if (rule == null) {
			return "?";
		}
		long differences = rule.entrySet()
			.stream()
			.filter((binding) -> !Objects.equals(this.bindings.get(binding.getKey()), binding.getValue()))
			.count()
				+ this.bindings.keySet().stream().filter((key) -> !rule.containsKey(key)).count();
		return String.format(java.util.Locale.ROOT, "%,d", differences);
	}

}
