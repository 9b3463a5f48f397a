package io.valueguard.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Random;

import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.FlushOptions;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.Statistics;
import org.rocksdb.TableProperties;
import org.rocksdb.TickerType;

import static org.assertj.core.api.Assertions.assertThat;

class BoundedRocksDbTests {

	static {
		RocksDB.loadLibrary();
	}

	@Test
	void shouldChargeEveryStoreToOneSharedBudgetWithBloomFilters() {
		Properties configuration = new Properties();
		BoundedRocksDb.configure(configuration, TestProperties
			.of(Map.of("valueguard.rocksdb.block-cache-size", "32MB", "valueguard.rocksdb.write-buffer-budget", "8MB"))
			.rocksdb());
		assertThat(configuration).containsEntry(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
				BoundedRocksDb.class.getName());
		Map<String, Object> configs = new HashMap<>();
		configuration.forEach((key, value) -> configs.put((String) key, value));

		try (Options bindings = new Options(); Options owners = new Options()) {
			bindings.setTableFormatConfig(new BlockBasedTableConfig());
			owners.setTableFormatConfig(new BlockBasedTableConfig());
			BoundedRocksDb first = new BoundedRocksDb();
			BoundedRocksDb second = new BoundedRocksDb();
			first.setConfig("bindings", bindings, configs);
			second.setConfig("owners", owners, configs);

			BlockBasedTableConfig table = (BlockBasedTableConfig) bindings.tableFormatConfig();
			assertThat(table.cacheIndexAndFilterBlocks()).isTrue();
			assertThat(table.filterPolicy()).as("Bloom filter").isNotNull();
			// memtables are small and few: the write buffer manager charges them to the shared cache
			assertThat(bindings.writeBufferSize()).isEqualTo(2L << 20);
			assertThat(bindings.maxWriteBufferNumber()).isEqualTo(2);
			first.close("bindings", bindings);
			second.close("owners", owners);
		}
	}

	@Test
	void shouldLeaveBloomFiltersOutWhenTurnedOff() {
		Properties configuration = new Properties();
		BoundedRocksDb.configure(configuration,
				TestProperties.of(Map.of("valueguard.rocksdb.bloom-filter-bits-per-key", 0)).rocksdb());
		Map<String, Object> configs = new HashMap<>();
		configuration.forEach((key, value) -> configs.put((String) key, value));
		try (Options options = new Options()) {
			options.setTableFormatConfig(new BlockBasedTableConfig());
			new BoundedRocksDb().setConfig("bindings", options, configs);
			assertThat(((BlockBasedTableConfig) options.tableFormatConfig()).filterPolicy()).isNull();
		}
	}

	@Test
	void shouldReadOnePartitionOfAFileFilterWhenALookupMissesTheCacheWithPartitionedFilters(@TempDir Path directory)
			throws RocksDBException {
		// about 4 KiB a read: the partition that covers the key
		assertThat(filterBytesPerRead(directory, Map.of("valueguard.rocksdb.partitioned-filters", true)))
			.isLessThan(16 << 10);
	}

	@Test
	void shouldReadAFileWholeFilterWhenALookupMissesTheCacheByDefault(@TempDir Path directory)
			throws RocksDBException {
		// the whole filter of the file: about 250 KB at 200,000 entries and 10 bits a key
		assertThat(filterBytesPerRead(directory, Map.of())).isGreaterThan(200_000L);
	}

	@Test
	void shouldEstimateAStoreIndexAndFiltersFromItsEntriesAndFileSize(@TempDir Path directory) throws RocksDBException {
		assertThat(estimatedOverActualIndexAndFilters(directory.resolve("whole"), Map.of())).isBetween(0.8, 1.25);
		assertThat(estimatedOverActualIndexAndFilters(directory.resolve("partitioned"),
				Map.of("valueguard.rocksdb.partitioned-filters", true)))
			.isBetween(0.8, 1.25);
	}

	/**
	 * Writes 200,000 entries shaped like the bindings store's (a key of a dozen bytes, a claim of about 30) and
	 * returns the estimate from what Kafka Streams reports of a store over the index and filter sizes of its files.
	 */
	private static double estimatedOverActualIndexAndFilters(Path directory, Map<String, Object> settings)
			throws RocksDBException {
		io.valueguard.config.ValueGuardProperties.RocksDb rocksdb = TestProperties.of(settings).rocksdb();
		BoundedRocksDb setter = new BoundedRocksDb();
		Random random = new Random(25);
		try (Options options = new Options(); FlushOptions flush = new FlushOptions()) {
			options.setCreateIfMissing(true);
			options.setTableFormatConfig(new BlockBasedTableConfig());
			setter.setConfig("bindings", options, configs(rocksdb));
			try (RocksDB store = RocksDB.open(options, directory.toString())) {
				for (int i = 0; i < 200_000; i++) {
					byte[] claim = new byte[30];
					random.nextBytes(claim);
					store.put(bytes("user-" + random.nextInt(1_000_000)), claim);
				}
				store.flush(flush.setWaitForFlush(true));
				long actual = 0;
				for (TableProperties file : store.getPropertiesOfAllTables().values()) {
					actual += file.getIndexSize() + file.getFilterSize();
				}
				long estimate = BoundedRocksDb.indexAndFilterBytes(store.getLongProperty("rocksdb.estimate-num-keys"),
						store.getLongProperty("rocksdb.total-sst-files-size"), rocksdb.bloomFilterBitsPerKey());
				return (double) estimate / actual;
			}
			finally {
				setter.close("bindings", options);
			}
		}
	}

	@Test
	void shouldKeepATenthOfTheBudgetForIndexAndFilters() {
		assertThat(BoundedRocksDb.indexAndFilterShare(
				TestProperties.of(Map.of("valueguard.rocksdb.block-cache-size", "64MB")).rocksdb()))
			.isEqualTo((64L << 20) / 10);
	}

	/** The filter bytes a lookup of an absent key reads into the block cache, from a file of 200,000 entries. */
	private static long filterBytesPerRead(Path directory, Map<String, Object> settings) throws RocksDBException {
		Map<String, Object> configs = configs(TestProperties.of(settings).rocksdb());
		BoundedRocksDb setter = new BoundedRocksDb();
		// a cache too small to keep any filter block: every lookup below has to read the filter it needs
		try (Options options = new Options(); Statistics statistics = new Statistics();
				LRUCache tiny = new LRUCache(64 << 10); FlushOptions flush = new FlushOptions()) {
			options.setCreateIfMissing(true);
			options.setTableFormatConfig(new BlockBasedTableConfig());
			setter.setConfig("bindings", options, configs);
			BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
			table.setBlockCache(tiny);
			options.setTableFormatConfig(table);
			options.setStatistics(statistics);
			try (RocksDB store = RocksDB.open(options, directory.toString())) {
				for (int i = 0; i < 200_000; i++) {
					store.put(bytes("key-" + i), bytes("value-" + i));
				}
				store.flush(flush.setWaitForFlush(true));
				store.compactRange();
				assertThat(store.getLiveFilesMetaData()).hasSize(1);
				long missesBefore = statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_MISS);
				long bytesBefore = statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_BYTES_INSERT);
				for (int i = 0; i < 100; i++) {
					// absent keys within the file's key range, so that the filter is asked
					assertThat(store.get(bytes("key-" + i + "-absent"))).isNull();
				}
				long misses = statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_MISS) - missesBefore;
				long bytes = statistics.getTickerCount(TickerType.BLOCK_CACHE_FILTER_BYTES_INSERT) - bytesBefore;
				assertThat(misses).as("filter reads").isPositive();
				return bytes / misses;
			}
			finally {
				setter.close("bindings", options);
			}
		}
	}

	private static Map<String, Object> configs(io.valueguard.config.ValueGuardProperties.RocksDb settings) {
		Properties configuration = new Properties();
		BoundedRocksDb.configure(configuration, settings);
		Map<String, Object> configs = new HashMap<>();
		configuration.forEach((key, value) -> configs.put((String) key, value));
		return configs;
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
