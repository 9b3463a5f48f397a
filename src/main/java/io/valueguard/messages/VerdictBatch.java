package io.valueguard.messages;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.jspecify.annotations.Nullable;

/**
 * Verdicts for the keys of one claims partition, in the order the value stage reached them: one record
 * carries many, as {@link CommandBatch} does for commands.
 * @param partition the claims partition (and eviction-feedback partition) that holds every key of the batch
 */
public record VerdictBatch(int partition, List<Entry> entries) {

	/**
	 * One verdict about one key.
	 * @param key the key the verdict is about, or null in a record of the single-message format, whose record key is the key
	 */
	public record Entry(@Nullable String key, Verdict verdict) {

	}

	/**
	 * Routes each batch to the claims partition its keys were read from, whatever partitioner produced the claims:
	 * the {@code valueStage-out-0} binding's stream partitioner.
	 */
	public static final StreamPartitioner<String, VerdictBatch> PARTITIONER = (topic, key, batch,
			numPartitions) -> Optional.of(Set.of(batch.partition()));

	/** An upper bound of an entry's encoded size, cheap enough to count every entry with. */
	public static int sizeOf(String key, Verdict verdict) {
		return 3 * (key.length() + verdict.value().length() + verdict.winnerKey().length()) + 40;
	}

	private static final byte FORMAT = 2;

	byte[] encode() {
		// exact for ASCII: format, partition, count, then per entry four lengths, two timestamps, reason, partition
		int expected = 9;
		for (Entry entry : this.entries) {
			Verdict verdict = entry.verdict();
			expected += entry.key().length() + verdict.value().length() + verdict.winnerKey().length() + 33;
		}
		return BinaryCodec.encode(FORMAT, expected, (out) -> out.int32(this.partition)
			.list(this.entries, (element, entry) -> entry.verdict().write(element.string(entry.key()))));
	}

	static VerdictBatch decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, "verdicts", Verdict.FORMAT,
				(in) -> new VerdictBatch(-1, List.of(new Entry(null, Verdict.read(in)))), FORMAT,
				(in) -> new VerdictBatch(in.int32(),
						in.list((element) -> new Entry(element.string(), Verdict.read(element)))));
	}

	/** Serde of the eviction-feedback topic: batches, and verdicts in the single-message format. */
	public static final class Serde extends RecordSerde<VerdictBatch> {

		public Serde() {
			super(VerdictBatch::encode, VerdictBatch::decode);
		}

	}

}
