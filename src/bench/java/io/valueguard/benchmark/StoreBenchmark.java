package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.valueguard.support.BrokerProcess;
import io.valueguard.support.InstanceProcess;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * One instance holding many keys and values. Resident memory: its RocksDB stores share one block cache and write
 * buffer manager ({@code valueguard.rocksdb.*}), so the process should stay within the JVM heap plus that budget plus
 * the JVM's own overhead, however many entries it holds. Restore: the instance stops, its state directory is wiped
 * and it starts again, restoring both stores from their changelogs; records per second of each store (from the
 * instance's log, one line per partition) against a plain consumer reading the same changelog from the same broker.
 * Keys claim values two to one, so the bindings store holds {@code keys} entries and the owners store
 * {@code keys / 2}. Not part of {@code ./mvnw verify}: run {@code scripts/benchmark.sh memory} (parameters there).
 */
class StoreBenchmark {

	private static final int KEYS = Integer.getInteger("valueguard.bench.keys", 1_000_000);

	private static final int HEAP_MIB = Integer.getInteger("valueguard.bench.heap-mib", 1024);

	private static final int CACHE_MIB = Integer.getInteger("valueguard.bench.block-cache-mib", 256);

	private static final int PARTITIONS = 6;

	@Test
	void residentMemoryWithinBudgetAndRestoreRate() throws Exception {
		Path work = BenchInstances.workDirectory("memory-");
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
					BenchInstances.arguments(prefix, topic, PARTITIONS,
							"--valueguard.rocksdb.block-cache-size=" + CACHE_MIB + "MB"))
				.jvmOptions("-Xmx" + HEAP_MIB + "m")) {
				instance.start();
				Map<String, Set<String>> inputs = new LinkedHashMap<>();
				inputs.put(prefix + "-keys", Set.of(topic, prefix + "-eviction-feedback"));
				inputs.put(prefix + "-values", Set.of(prefix + "-owner-commands"));
				long millis = new CatchUp(admin, PARTITIONS, inputs)
					.time(() -> BenchInstances.running(instance, prefix), null);
				long peak = 0;
				for (int i = 0; i < 20; i++) {
					peak = Math.max(peak, CatchUp.residentMib(instance.pid()));
					Thread.sleep(Duration.ofMillis(500).toMillis());
				}
				long bound = HEAP_MIB + CACHE_MIB + 200;
				StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
						"%,d keys, %,d values on one instance (processed in %.1f s): resident %,d MiB at most; heap %,d "
								+ "MiB + RocksDB budget %,d MiB + 200 MiB = %,d MiB%n%n",
						KEYS, KEYS / 2, millis / 1000.0, peak, HEAP_MIB, CACHE_MIB, bound));
				report.append(restore(instance, broker.bootstrapServers(), prefix));
				System.out.println(report);
				Files.writeString(work.resolve("report.md"), report);
				org.assertj.core.api.Assertions.assertThat(peak).as(report.toString()).isLessThanOrEqualTo(bound);
			}
		}
		finally {
			BenchInstances.dropData(work);
		}
	}

	/** Stops the instance, wipes its state, starts it again and compares each store's restore with a plain consumer. */
	private static String restore(InstanceProcess instance, String bootstrapServers, String prefix)
			throws Exception {
		instance.stop();
		String disk = disk(instance.stateDir());
		instance.wipeState();
		long readyMillis = StateFigures.restartUntilReady(instance, Duration.ofMinutes(10));
		String log = StateFigures.sinceLastStart(instance);
		Map<String, long[]> stores = StateFigures.restoredByStore(log);
		Map<String, long[]> filtered = StateFigures.filteredByStore(log);
		StringBuilder report = new StringBuilder(disk);
		report.append(String.format(Locale.ROOT,
				"Restart with the state directory wiped: ready after %.1f s%n%n| store | records restored | restore "
						+ "time (slowest partition) | restore records/s | plain consumer records/s | ratio | keys read into the key "
						+ "filters after it (all tasks' passes) |%n| --- | --- | --- | --- | --- | --- | --- |%n",
				readyMillis / 1000.0));
		Map<String, String> changelogs = Map.of("bindings", prefix + "-keys-bindings-changelog", "owners",
				prefix + "-values-owners-changelog");
		// the first read warms up this JVM's consumer code, as the instance's restore consumers are warm by now
		plainConsumerRate(bootstrapServers, changelogs.get("owners"));
		for (Map.Entry<String, long[]> store : stores.entrySet()) {
			double restoreRate = store.getValue()[0] / (store.getValue()[1] / 1000.0);
			double plainRate = plainConsumerRate(bootstrapServers, changelogs.get(store.getKey()));
			long[] pass = filtered.getOrDefault(store.getKey(), new long[2]);
			report.append(String.format(Locale.ROOT, "| %s | %,d | %.1f s | %,.0f | %,.0f | %.2f | %,d in %.2f s |%n",
					store.getKey(), store.getValue()[0], store.getValue()[1] / 1000.0, restoreRate, plainRate,
					restoreRate / plainRate, pass[0], pass[1] / 1000.0));
		}
		return report.toString();
	}

	/**
	 * What the stopped instance's stores take on disk (RocksDB files, every partition), in all and per million of
	 * their entries: {@code keys} bindings and {@code keys / 2} owners.
	 */
	private static String disk(Path stateDir) throws java.io.IOException {
		Map<String, Long> bytes = StateFigures.bytesOnDisk(stateDir);
		Map<String, Long> entries = Map.of("bindings", (long) KEYS, "owners", KEYS / 2L);
		StringBuilder report = new StringBuilder("| store | entries | on disk | per million entries |\n| --- | --- | --- | --- |\n");
		bytes.forEach((store, size) -> report.append(String.format(Locale.ROOT, "| %s | %,d | %,.1f MiB | %s |%n", store,
				entries.getOrDefault(store, 0L), size / 1048576.0, entries.containsKey(store)
						? String.format(Locale.ROOT, "%,.1f MiB", size / 1048576.0 / (entries.get(store) / 1e6)) : "")));
		return report.append('\n').toString();
	}

	/** Records per second of a consumer with default settings reading the whole topic (read_committed). */
	private static double plainConsumerRate(String bootstrapServers, String topic) throws Exception {
		try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
				Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
						ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
				new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
			List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(10))
				.stream()
				.map((info) -> new TopicPartition(topic, info.partition()))
				.toList();
			consumer.assign(partitions);
			consumer.seekToBeginning(partitions);
			Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
			long records = 0;
			long start = System.nanoTime();
			while (partitions.stream().anyMatch((partition) -> consumer.position(partition) < ends.get(partition))) {
				records += consumer.poll(Duration.ofMillis(100)).count();
			}
			return records / ((System.nanoTime() - start) / 1e9);
		}
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
