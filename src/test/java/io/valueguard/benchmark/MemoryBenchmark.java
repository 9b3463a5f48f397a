package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.valueguard.support.BrokerProcess;
import io.valueguard.support.InstanceProcess;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * Resident memory of one instance holding many keys and values: its RocksDB stores share one block cache and write
 * buffer manager ({@code valueguard.rocksdb.*}), so the process should stay within the JVM heap plus that budget plus
 * the JVM's own overhead, however many entries it holds. Keys claim values two to one, so the bindings store holds
 * {@code keys} entries and the owners store {@code keys / 2}. Not part of {@code ./mvnw verify}: run
 * {@code scripts/benchmark.sh memory} (parameters there).
 */
class MemoryBenchmark {

	private static final int KEYS = Integer.getInteger("valueguard.bench.keys", 1_000_000);

	private static final int HEAP_MIB = Integer.getInteger("valueguard.bench.heap-mib", 1024);

	private static final int CACHE_MIB = Integer.getInteger("valueguard.bench.block-cache-mib", 256);

	private static final int PARTITIONS = 6;

	@Test
	void residentMemoryStaysWithinHeapPlusRocksDbBudget() throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		Path work = Path.of("target", "benchmark",
				"memory-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
		Files.createDirectories(work);
		try (BrokerProcess broker = new BrokerProcess(work).start();
				Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
			String topic = "bench.claims";
			admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1))).all().get();
			try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
					ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(), ProducerConfig.LINGER_MS_CONFIG,
					20, ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024), new ByteArraySerializer(),
					new ByteArraySerializer())) {
				for (int i = 0; i < KEYS; i++) {
					producer.send(new ProducerRecord<>(topic, utf8("user-" + i), utf8("value-" + (i / 2))));
				}
			}
			String prefix = "bench-vg-memory";
			try (InstanceProcess instance = new InstanceProcess(prefix, work, broker.bootstrapServers(),
					List.of("--valueguard.application-id=" + prefix, "--valueguard.topics.claims=" + topic,
							"--valueguard.topics.bindings=" + prefix + ".bindings",
							"--valueguard.topics.evictions=" + prefix + ".evictions",
							"--valueguard.topics.dlq=" + prefix + ".dlq", "--valueguard.topics.partitions=" + PARTITIONS,
							"--valueguard.rocksdb.block-cache-size=" + CACHE_MIB + "MB",
							"--logging.level.org.apache.kafka.streams.KafkaStreams=INFO"))
				.jvmOptions("-Xmx" + HEAP_MIB + "m")) {
				instance.start();
				Map<String, Set<String>> inputs = new LinkedHashMap<>();
				inputs.put(prefix + "-keys", Set.of(topic, prefix + "-eviction-feedback"));
				inputs.put(prefix + "-values", Set.of(prefix + "-owner-commands"));
				long millis = new CatchUp(admin, PARTITIONS, inputs).time(() -> instance.log()
					.lines()
					.anyMatch((line) -> line.contains("[" + prefix + "-keys-") && line.contains("to RUNNING")), null);
				long peak = 0;
				for (int i = 0; i < 20; i++) {
					peak = Math.max(peak, residentMib(instance.pid()));
					Thread.sleep(Duration.ofMillis(500).toMillis());
				}
				long bound = HEAP_MIB + CACHE_MIB + 200;
				String report = String.format(Locale.ROOT,
						"%,d keys, %,d values on one instance (processed in %.1f s): resident %,d MiB at most; heap %,d "
								+ "MiB + RocksDB budget %,d MiB + 200 MiB = %,d MiB%n",
						KEYS, KEYS / 2, millis / 1000.0, peak, HEAP_MIB, CACHE_MIB, bound);
				System.out.println(report);
				Files.writeString(work.resolve("report.md"), report);
				org.assertj.core.api.Assertions.assertThat(peak).as(report).isLessThanOrEqualTo(bound);
			}
		}
	}

	private static long residentMib(long pid) throws java.io.IOException {
		for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
			if (line.startsWith("VmRSS:")) {
				return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
			}
		}
		throw new IllegalStateException("no VmRSS for " + pid);
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
