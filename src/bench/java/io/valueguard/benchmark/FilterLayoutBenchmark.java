package io.valueguard.benchmark;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import io.valueguard.config.ValueGuardProperties;
import io.valueguard.kafka.BoundedRocksDb;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.CompactionStyle;
import org.rocksdb.CompressionType;
import org.rocksdb.FlushOptions;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.springframework.util.unit.DataSize;

/**
 * What partitioned index and filters ({@code valueguard.rocksdb.partitioned-filters}) cost a read while every index
 * and filter block fits the cache: two RocksDB stores of the same entries, one with whole blocks and one partitioned,
 * each opened with the options Kafka Streams gives its stores (universal compaction, no compression, 4 KiB blocks) and
 * then {@link BoundedRocksDb}'s, sharing its one cache, read in alternating rounds of random keys, 70% of them present
 * (a claim reads its key's and its value's entries, most of them there). Reports nanoseconds per read of each layout
 * and their ratio, round by round. Not part of {@code ./mvnw verify}: run {@code scripts/benchmark.sh filters}
 * (parameters there). Where the filters do not fit the cache, the cost curve shows what partitioning buys
 * ({@code scripts/benchmark.sh scale}).
 */
class FilterLayoutBenchmark {

	/** About a store partition's share of 1,000,000 keys over 6 partitions. */
	private static final int ENTRIES = Integer.getInteger("valueguard.bench.entries", 170_000);

	private static final int READS = Integer.getInteger("valueguard.bench.reads", 1_000_000);

	private static final int ROUNDS = Integer.getInteger("valueguard.bench.rounds", 4);

	static {
		RocksDB.loadLibrary();
	}

	@Test
	void readCostOfEachLayout() throws Exception {
		Path work = BenchInstances.workDirectory("filters-");
		List<Options> options = new ArrayList<>();
		try (RocksDB whole = open(work.resolve("whole"), false, options);
				RocksDB partitioned = open(work.resolve("partitioned"), true, options)) {
			fill(whole);
			fill(partitioned);
			byte[][] keys = keys();
			StringBuilder report = new StringBuilder(String.format(Locale.ROOT,
					"%,d entries per store (each written, half of them twice), %,d reads a round, 70%% present%n%n"
							+ "| round | whole blocks, ns per read | partitioned, ns per read | partitioned / whole |%n"
							+ "| --- | --- | --- | --- |%n", ENTRIES, READS));
			for (int round = 1; round <= ROUNDS; round++) {
				double wholeNanos = nanosPerRead(whole, keys);
				double partitionedNanos = nanosPerRead(partitioned, keys);
				report.append(String.format(Locale.ROOT, "| %d | %,.0f | %,.0f | %.2f |%n", round, wholeNanos,
						partitionedNanos, partitionedNanos / wholeNanos));
			}
			System.out.print(report);
		}
		finally {
			options.forEach(Options::close);
			BenchInstances.dropData(work);
		}
	}

	private static RocksDB open(Path directory, boolean partitioned, List<Options> opened) throws Exception {
		Properties configuration = new Properties();
		BoundedRocksDb.configure(configuration, new ValueGuardProperties.RocksDb(DataSize.ofMegabytes(64),
				DataSize.ofMegabytes(16), 10, partitioned));
		Map<String, Object> configs = new HashMap<>();
		configuration.forEach((key, value) -> configs.put((String) key, value));
		BlockBasedTableConfig table = new BlockBasedTableConfig();
		table.setBlockSize(4096L);
		Options options = new Options().setCreateIfMissing(true)
			.setCompactionStyle(CompactionStyle.UNIVERSAL)
			.setCompressionType(CompressionType.NO_COMPRESSION);
		options.setTableFormatConfig(table);
		new BoundedRocksDb().setConfig(directory.getFileName().toString(), options, configs);
		opened.add(options);
		Files.createDirectories(directory);
		return RocksDB.open(options, directory.toString());
	}

	private static void fill(RocksDB store) throws Exception {
		byte[] value = new byte[40];
		for (int i = 0; i < ENTRIES; i++) {
			store.put(utf8("key-" + i), value);
		}
		for (int i = 0; i < ENTRIES; i += 2) {
			store.put(utf8("key-" + i), value);
		}
		try (FlushOptions flush = new FlushOptions().setWaitForFlush(true)) {
			store.flush(flush);
		}
	}

	private static byte[][] keys() {
		Random random = new Random(42);
		byte[][] keys = new byte[READS][];
		for (int i = 0; i < READS; i++) {
			int key = random.nextInt(ENTRIES);
			keys[i] = utf8((random.nextInt(10) < 7) ? "key-" + key : "key-" + key + "-absent");
		}
		return keys;
	}

	private static double nanosPerRead(RocksDB store, byte[][] keys) throws Exception {
		long found = 0;
		long start = System.nanoTime();
		for (byte[] key : keys) {
			if (store.get(key) != null) {
				found++;
			}
		}
		long nanos = System.nanoTime() - start;
		if (found == 0) {
			throw new IllegalStateException("no key found: the stores were not filled");
		}
		return (double) nanos / keys.length;
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
