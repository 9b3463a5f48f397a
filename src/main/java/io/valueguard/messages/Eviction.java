package io.valueguard.messages;

import java.io.IOException;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;

/**
 * The value stage's verdict that one claim of a key (the record key) does not own {@code value}: the claim made at
 * {@code timestamp} lost to the claim of {@code winnerKey} at {@code winnerTimestamp}. The key stage applies it only
 * if the key's current claim is exactly that claim; otherwise the key has moved on and the verdict is stale.
 */
public record Eviction(String value, long timestamp, String winnerKey, long winnerTimestamp, Reason reason,
		int keyPartition) {

	public enum Reason {

		/** The claim held the value until a greater claim took it. */
		SUPERSEDED,
		/** The claim arrived after a greater claim of the value had already been made: it never held the value. */
		LATE

	}

	/**
	 * When the verdict was decided: at the winning claim's time when a greater claim took the value, at the late
	 * claim's own time when it came too late.
	 */
	public long decidedAt() {
		return (this.reason == Reason.SUPERSEDED) ? this.winnerTimestamp : this.timestamp;
	}

	/** The single-message format of a verdict: one per record, the record key naming the key. */
	static final byte FORMAT = 1;

	byte[] encode() {
		return BinaryCodec.encode(FORMAT, this::write);
	}

	/** The fields after the format byte; a batch repeats them after each key. */
	void write(BinaryCodec.Out out) throws IOException {
		out.string(this.value)
			.int64(this.timestamp)
			.string(this.winnerKey)
			.int64(this.winnerTimestamp)
			.bool(this.reason == Reason.SUPERSEDED)
			.int32(this.keyPartition);
	}

	static Eviction decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, FORMAT, "eviction", Eviction::read);
	}

	static Eviction read(BinaryCodec.In in) throws IOException {
		return new Eviction(in.string(), in.int64(), in.string(), in.int64(),
				in.bool() ? Reason.SUPERSEDED : Reason.LATE, in.int32());
	}

	/** Serde of a verdict in the single-message format; the topic's own serde reads both ({@link VerdictBatch}). */
	public static final class Serde extends RecordSerde<Eviction> {

		public Serde() {
			super(Eviction::encode, Eviction::decode);
		}

	}

}
