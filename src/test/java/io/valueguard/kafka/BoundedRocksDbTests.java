package io.valueguard.kafka;

import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

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

}
