package io.valueguard.messages;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.jspecify.annotations.Nullable;

/**
 * Eviction verdicts for the keys of one claims partition, in the order the value stage reached them: one record
 * carries many, as {@link CommandBatch} does for commands.
 * @param partition the claims partition (and eviction-feedback partition) that holds every key of the batch
 */
public record VerdictBatch(int partition, List<Entry> entries) {

	/**
	 * One verdict about one key.
	 * @param key the evicted key, or null in a record of the single-message format, whose record key is the key
	 */
	public record Entry(@Nullable String key, Eviction eviction) {

	}

	/**
	 * Routes each batch to the claims partition its keys were read from, whatever partitioner produced the claims:
	 * the {@code valueStage-out-0} binding's stream partitioner.
	 */
	public static final StreamPartitioner<String, VerdictBatch> PARTITIONER = (topic, key, batch,
			numPartitions) -> Optional.of(Set.of(batch.partition()));

	/** An upper bound of an entry's encoded size, cheap enough to count every entry with. */
	public static int sizeOf(String key, Eviction eviction) {
		return 3 * (key.length() + eviction.value().length() + eviction.winnerKey().length()) + 40;
	}

	private static final byte FORMAT = 2;

	byte[] encode() {
		// exact for ASCII: format, partition, count, then per entry four lengths, two timestamps, reason, partition
		int expected = 9;
		for (Entry entry : this.entries) {
			Eviction eviction = entry.eviction();
			expected += entry.key().length() + eviction.value().length() + eviction.winnerKey().length() + 33;
		}
		return BinaryCodec.encode(FORMAT, expected, (out) -> out.int32(this.partition)
			.list(this.entries, (element, entry) -> entry.eviction().write(element.string(entry.key()))));
	}

	static VerdictBatch decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, "verdicts", Eviction.FORMAT,
				(in) -> new VerdictBatch(-1, List.of(new Entry(null, Eviction.read(in)))), FORMAT,
				(in) -> new VerdictBatch(in.int32(),
						in.list((element) -> new Entry(element.string(), Eviction.read(element)))));
	}

	/** Serde of the eviction-feedback topic: batches, and verdicts in the single-message format. */
	public static final class Serde extends RecordSerde<VerdictBatch> {

		public Serde() {
			super(VerdictBatch::encode, VerdictBatch::decode);
		}

	}

}
