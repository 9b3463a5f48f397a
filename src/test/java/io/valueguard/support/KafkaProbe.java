package io.valueguard.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;


import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.OwnerCommand;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/** Plain Kafka clients for tests: produce raw records, read whole topics as committed data. */
public final class KafkaProbe implements AutoCloseable {

	private final String bootstrapServers;

	private final KafkaProducer<byte[], byte[]> producer;

	public KafkaProbe(String bootstrapServers) {
		this.bootstrapServers = bootstrapServers;
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
				ProducerConfig.ACKS_CONFIG, "all"), new ByteArraySerializer(), new ByteArraySerializer());
	}

	public void send(String topic, byte[] key, byte[] value, long timestamp) {
		send(topic, null, key, value, timestamp);
	}

	/** A record with headers, each a name and its UTF-8 value, to the default partitioner's partition. */
	public void send(String topic, byte[] key, byte @Nullable [] value, long timestamp, String... headerPairs) {
		ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic, null, timestamp, key, value);
		for (int i = 0; i < headerPairs.length; i += 2) {
			record.headers().add(headerPairs[i], headerPairs[i + 1].getBytes(java.nio.charset.StandardCharsets.UTF_8));
		}
		send(record);
	}

	/** A record to the given partition, or the default partitioner's when it is null. */
	public void send(String topic, Integer partition, byte[] key, byte[] value, long timestamp) {
		send(new ProducerRecord<>(topic, partition, timestamp, key, value));
	}

	private void send(ProducerRecord<byte[], byte[]> record) {
		try {
			this.producer.send(record).get(30, TimeUnit.SECONDS);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
		catch (ExecutionException | TimeoutException ex) {
			throw new IllegalStateException("Could not produce to " + record.topic(), ex);
		}
	}

	/** Every committed record of the topic, in partition order, read from the beginning to the current end. */
	public List<ConsumerRecord<byte[], byte[]>> readAll(String topic) {
		return readAll(topic, "read_committed");
	}

	/**
	 * Every record the topic's log holds, aborted transactions' included, from the beginning to the current end: what
	 * anyone with access to the broker's disks could read.
	 */
	public List<ConsumerRecord<byte[], byte[]>> readLog(String topic) {
		return readAll(topic, "read_uncommitted");
	}

	private List<ConsumerRecord<byte[], byte[]>> readAll(String topic, String isolation) {
		List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
		readAll(topic, isolation, records::add);
		return records;
	}

	/**
	 * Gives each record from the beginning to the current end to {@code each}, without keeping them: a topic of tens
	 * of millions of records fits no list. Gives up after 30 s without a record while not at the end.
	 */
	private void readAll(String topic, String isolation, Consumer<ConsumerRecord<byte[], byte[]>> each) {
		try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(Map.of(
				ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.bootstrapServers, ConsumerConfig.GROUP_ID_CONFIG,
				"probe-" + UUID.randomUUID(), ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation,
				ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest", ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false),
				new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10))
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
			long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
			while (partitions.stream().anyMatch((p) -> consumer.position(p) < end.get(p))) {
				if (System.nanoTime() > deadline) {
					throw new IllegalStateException("Timed out reading " + topic);
				}
				ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
				if (!records.isEmpty()) {
					records.forEach(each);
					deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
				}
			}
		}
	}

	/**
	 * The owner-commands topic decoded, value first, in the order each partition carries them: for a value, the order
	 * in which the value stage applies its commands.
	 */
	public List<Map.Entry<String, OwnerCommand>> ownerCommands(String topic) {
		List<Map.Entry<String, OwnerCommand>> commands = new ArrayList<>();
		try (CommandBatch.Serde serde = new CommandBatch.Serde()) {
			for (ConsumerRecord<byte[], byte[]> record : readAll(topic)) {
				CommandBatch batch = serde.deserializer().deserialize(topic, record.value());
				for (CommandBatch.Entry entry : batch.entries()) {
					String value = (entry.value() != null) ? entry.value()
							: new String(record.key(), StandardCharsets.UTF_8);
					commands.add(Map.entry(value, entry.command()));
				}
			}
		}
		return commands;
	}

	/** The topic read as a table (last value per key, tombstones delete), restricted to {@code keys}. */
	public Map<String, String> table(String topic, Set<String> keys) {
		return table(topic, keys::contains);
	}

	/** The whole topic read as a table (last value per key, tombstones delete). */
	public Map<String, String> table(String topic) {
		return table(topic, (key) -> true);
	}

	private Map<String, String> table(String topic, Predicate<String> keys) {
		Map<String, String> table = new HashMap<>();
		readAll(topic, "read_committed", (record) -> {
			String key = new String(record.key(), StandardCharsets.UTF_8);
			if (!keys.test(key)) {
				return;
			}
			if (record.value() == null) {
				table.remove(key);
			}
			else {
				table.put(key, new String(record.value(), StandardCharsets.UTF_8));
			}
		});
		return table;
	}

	/**
	 * True while some transaction has written to the topic and not yet committed or aborted: the high watermark
	 * that a read_uncommitted reader sees is then ahead of the last stable offset that read_committed sees.
	 */
	public boolean hasOpenTransaction(String topic) {
		return endOffsetSum(topic, "read_uncommitted") > endOffsetSum(topic, "read_committed");
	}

	/** How many records the topic holds, over all partitions: to show that nothing was produced. */
	public long endOffsetSum(String topic) {
		return endOffsetSum(topic, "read_uncommitted");
	}

	private long endOffsetSum(String topic, String isolation) {
		try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, this.bootstrapServers,
						ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation),
				new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10))
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			return consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum();
		}
	}

	/** The group's committed offsets, as its coordinator gives them now. */
	public Map<TopicPartition, OffsetAndMetadata> committedOffsets(String group) throws Exception {
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, this.bootstrapServers))) {
			return new HashMap<>(admin.listConsumerGroupOffsets(group)
				.partitionsToOffsetAndMetadata()
				.get(30, TimeUnit.SECONDS));
		}
	}

	/**
	 * A producer with {@code transactionalId} whose transactions may stay open ten minutes: to hold a group's offsets
	 * back, as a crashed producer's open transaction does until the broker aborts it.
	 */
	public KafkaProducer<byte[], byte[]> transactionalProducer(String transactionalId) {
		return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, this.bootstrapServers,
				ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId, ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
				600_000), new ByteArraySerializer(), new ByteArraySerializer());
	}

	@Override
	public void close() {
		this.producer.close(Duration.ofSeconds(5));
	}

}
