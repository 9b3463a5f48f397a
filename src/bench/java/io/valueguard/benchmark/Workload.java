package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32;

import io.valueguard.support.InputRecord;
import io.valueguard.support.ReferenceModel;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * A claims topic that the applications of a benchmark read from its start: {@code claims} records of random keys
 * among {@code keys} for random values among {@code values}, 8% tombstones, timestamps a tenth of a millisecond apart
 * up to now and jittered by a second either way (so that some claims arrive out of order), and the guarantee the
 * applications run with. With {@code -Dvalueguard.bench.partitioner=crc32} the claims go where librdkafka's default
 * partitioner puts them (CRC32 of the key), not where Kafka's does (murmur2): most keys on another partition than
 * theirs, which ValueGuard reroutes.
 */
record Workload(String topic, int claims, int keys, int values, int partitions, String guarantee) {

	/** Whether the claims are partitioned as librdkafka's default partitioner does, not as Kafka's. */
	static final boolean CRC32_PARTITIONER = "crc32".equals(System.getProperty("valueguard.bench.partitioner",
			"murmur2"));

	/**
	 * At-least-once commits every 30 s, so committed offsets would mostly measure the commit interval: then
	 * applications are timed until their stream threads have processed every record instead.
	 */
	boolean exactlyOnce() {
		return this.guarantee.startsWith("exactly_once");
	}

	/**
	 * Creates the topic and writes the claims, the same for the same sizes (a fixed seed), and gives each to
	 * {@code model} when there is one; returns how long that took in milliseconds.
	 */
	long preload(Admin admin, String bootstrapServers, @Nullable ReferenceModel model) throws Exception {
		admin.createTopics(List.of(new NewTopic(this.topic, this.partitions, (short) 1))).all().get();
		Random random = new Random(42);
		long start = System.nanoTime();
		// the last claim is stamped now: ten million claims span half an hour, beyond what a broker accepts ahead
		long base = System.currentTimeMillis() - this.claims / 10;
		try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
				ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all",
				ProducerConfig.LINGER_MS_CONFIG, 20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024),
				new ByteArraySerializer(), new ByteArraySerializer())) {
			for (int i = 0; i < this.claims; i++) {
				byte[] key = ("user-" + random.nextInt(this.keys)).getBytes(StandardCharsets.UTF_8);
				byte[] value = (random.nextInt(100) < 8) ? null
						: ("value-" + random.nextInt(this.values)).getBytes(StandardCharsets.UTF_8);
				long timestamp = base + i / 10 - 1_000 + random.nextInt(2_000);
				Integer partition = CRC32_PARTITIONER ? crc32Partition(key) : null;
				producer.send(new ProducerRecord<>(this.topic, partition, timestamp, key, value));
				if (model != null) {
					model.apply(new InputRecord(new String(key, StandardCharsets.UTF_8),
							(value != null) ? new String(value, StandardCharsets.UTF_8) : null, timestamp));
				}
			}
			producer.flush();
		}
		return (System.nanoTime() - start) / 1_000_000;
	}

	/** The partition librdkafka's default partitioner ({@code consistent_random}) gives a key. */
	private int crc32Partition(byte[] key) {
		CRC32 crc = new CRC32();
		crc.update(key);
		return (int) (crc.getValue() % this.partitions);
	}

}
