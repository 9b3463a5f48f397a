package io.valueguard.kafka;

import java.util.Map;
import java.util.Properties;

import io.valueguard.config.ValueGuardProperties;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.BloomFilter;
import org.rocksdb.Cache;
import org.rocksdb.IndexType;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Gives every RocksDB store of the process one block cache and one write buffer manager, so that RocksDB's native
 * memory has one ceiling, {@code valueguard.rocksdb.block-cache-size}, however many store partitions the instance
 * holds: memtables, index and filter blocks are all charged to the cache. Point-lookup stores get Bloom filters, so
 * that a lookup of an absent key rarely reads a block. Kafka Streams creates this class by name, once per store; the
 * sizes reach it through the streams configuration, and the cache is made once, for both clients.
 */
public class BoundedRocksDb implements RocksDBConfigSetter {

	static final String BLOCK_CACHE_SIZE = "valueguard.rocksdb.block.cache.size";

	static final String WRITE_BUFFER_BUDGET = "valueguard.rocksdb.write.buffer.budget";

	static final String BLOOM_FILTER_BITS = "valueguard.rocksdb.bloom.filter.bits.per.key";

	static final String PARTITIONED_FILTERS = "valueguard.rocksdb.partitioned.filters";

	/** Memtables per store: one being written, one being flushed. */
	private static final int MEMTABLES = 2;

	/** The share of the block cache kept for index and filter blocks, so that data blocks cannot evict them. */
	static final double INDEX_AND_FILTER_SHARE = 0.1;

	/** RocksDB's data blocks, which these stores keep at the default size. */
	private static final int DATA_BLOCK_BYTES = 4096;

	/**
	 * An index entry per data block: a key that separates the block from the next (about as long as a short key)
	 * and the block's place in the file; measured at 22 to 24 bytes with keys of 12 to 16 bytes.
	 */
	private static final int INDEX_BYTES_PER_BLOCK = 24;

	private static final Object LOCK = new Object();

	private static Cache cache;

	private static WriteBufferManager writeBufferManager;

	private BloomFilter filter;

	/** The settings for both clients' configuration, as Kafka Streams passes them on to {@link #setConfig}. */
	public static void configure(Properties configuration, ValueGuardProperties.RocksDb settings) {
		configuration.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDb.class.getName());
		configuration.put(BLOCK_CACHE_SIZE, Long.toString(settings.blockCacheSize().toBytes()));
		configuration.put(WRITE_BUFFER_BUDGET, Long.toString(settings.writeBufferBudget().toBytes()));
		configuration.put(BLOOM_FILTER_BITS, Integer.toString(settings.bloomFilterBitsPerKey()));
		configuration.put(PARTITIONED_FILTERS, Boolean.toString(settings.partitionedFilters()));
	}

	/** The part of the budget that index and filter blocks have to themselves (the cache's high-priority pool). */
	public static long indexAndFilterShare(ValueGuardProperties.RocksDb settings) {
		return (long) (settings.blockCacheSize().toBytes() * INDEX_AND_FILTER_SHARE);
	}

	/**
	 * Estimates the index and filter blocks of a store from what Kafka Streams reports of it: a filter has
	 * {@code bloomBitsPerKey} bits per entry, an index one entry per 4 KiB of its files. Keys much longer than 16 bytes
	 * make the index larger than this says, by about their length per block (docs/scaling.md).
	 * @param entries the store's entries (RocksDB's {@code estimate-num-keys})
	 * @param fileBytes the size of its files ({@code total-sst-files-size})
	 */
	public static long indexAndFilterBytes(long entries, long fileBytes, int bloomBitsPerKey) {
		return entries * bloomBitsPerKey / 8 + fileBytes / DATA_BLOCK_BYTES * INDEX_BYTES_PER_BLOCK;
	}

	@Override
	public void setConfig(String storeName, Options options, Map<String, Object> configs) {
		long cacheSize = Long.parseLong(String.valueOf(configs.get(BLOCK_CACHE_SIZE)));
		long writeBuffers = Long.parseLong(String.valueOf(configs.get(WRITE_BUFFER_BUDGET)));
		int bloomBits = Integer.parseInt(String.valueOf(configs.get(BLOOM_FILTER_BITS)));
		boolean partitioned = Boolean.parseBoolean(String.valueOf(configs.get(PARTITIONED_FILTERS)));
		BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
		synchronized (LOCK) {
			if (cache == null) {
				cache = new LRUCache(cacheSize, -1, false, INDEX_AND_FILTER_SHARE);
				writeBufferManager = new WriteBufferManager(writeBuffers, cache);
			}
			table.setBlockCache(cache);
			options.setWriteBufferManager(writeBufferManager);
		}
		table.setCacheIndexAndFilterBlocks(true);
		table.setCacheIndexAndFilterBlocksWithHighPriority(true);
		if (partitioned) {
			// a lookup that misses the cache reads one 4 KiB partition of a file's index and filter, not the whole of
			// them (about 1.2 MiB of filter per million entries): with whole blocks, once the stores' index and
			// filters outgrow the cache's high-priority share every lookup rereads them, and at 10,000,000 keys on
			// 64 MB the claims rate fell to a ninth of the plain table's; partitioned, 0.45 of it. Not the default:
			// the second index level costs about 0.8 µs per read that reaches a file, 3 to 4% of a claim's
			// CPU at 100,000 keys (docs/benchmarks.md, "The cost curve")
			table.setIndexType(IndexType.kTwoLevelIndexSearch);
			table.setPartitionFilters(true);
			table.setMetadataBlockSize(4096);
		}
		table.setPinTopLevelIndexAndFilter(true);
		if (bloomBits > 0) {
			this.filter = new BloomFilter(bloomBits);
			table.setFilterPolicy(this.filter);
		}
		// memtables are charged to the shared budget: a store's share need not be large
		options.setWriteBufferSize(Math.max(1L << 20, Math.min(writeBuffers / 4, 16L << 20)));
		options.setMaxWriteBufferNumber(MEMTABLES);
		options.setTableFormatConfig(table);
	}

	@Override
	public void close(String storeName, Options options) {
		// the cache and the write buffer manager are shared by every store and live as long as the process
		if (this.filter != null) {
			this.filter.close();
		}
	}

}
