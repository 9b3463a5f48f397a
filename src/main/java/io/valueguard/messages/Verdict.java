package io.valueguard.messages;

import java.io.IOException;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;

/**
 * The value stage's ruling on one claim of a key (the record key): the claim of {@code value} made at
 * {@code timestamp} lost to the claim of {@code winnerKey} at {@code winnerTimestamp}, or, under first-wins, was
 * granted (then the winner is the claim itself). The key stage applies it only if the key's current claim is exactly
 * that claim; otherwise the key has moved on and the verdict is stale.
 */
public record Verdict(String value, long timestamp, String winnerKey, long winnerTimestamp, Reason reason,
		int keyPartition) {

	/** Why the key gets the verdict. Each has a fixed code on the wire, kept compatible with the boolean of old. */
	public enum Reason {

		/** The claim arrived after a greater claim of the value had already been made: it never held the value. */
		LATE(0),
		/** The claim held the value until a greater claim took it. */
		SUPERSEDED(1),
		/** First-wins: another key held the value when the claim arrived, so it never held the value. */
		REFUSED(2),
		/** First-wins: the value was free (or already the key's), so the claim holds it now. */
		GRANTED(3),
		/**
		 * Retention: the claim was more than {@code valueguard.retention} behind the value stage's stream time (its
		 * key's partition lagged), so it may not be compared with what was forgotten; the winner is empty, and its
		 * timestamp is that stream time.
		 */
		TOO_OLD(4),
		/**
		 * Erasure: the value stage's task has erased the key's name from every value of its partition; no value, no
		 * winner, the timestamp is the key's clock at the erasure. Not about a claim, and never an eviction event.
		 */
		ERASED(5);

		private final int code;

		Reason(int code) {
			this.code = code;
		}

		/** False for a grant and an erasure's report. */
		public boolean evicts() {
			return this != GRANTED && this != ERASED;
		}

		static Reason of(int code) throws IOException {
			for (Reason reason : values()) {
				if (reason.code == code) {
					return reason;
				}
			}
			throw new IOException("Unknown verdict reason " + code);
		}

	}

	/** A claim granted under first-wins: the key holds the value with this claim. */
	public static Verdict granted(String value, String key, long timestamp, int keyPartition) {
		return new Verdict(value, timestamp, key, timestamp, Reason.GRANTED, keyPartition);
	}

	/** A claim refused for its age: nobody won it, at the stream time {@code streamTime}. */
	public static Verdict tooOld(String value, long timestamp, long streamTime, int keyPartition) {
		return new Verdict(value, timestamp, "", streamTime, Reason.TOO_OLD, keyPartition);
	}

	/** One value stage task's report that it has erased the key's name, as the key asked at clock {@code clock}. */
	public static Verdict erased(long clock, int keyPartition) {
		return new Verdict("", clock, "", clock, Reason.ERASED, keyPartition);
	}

	/** True unless the verdict grants the claim or reports an erasure: the key lost the value. */
	public boolean evicts() {
		return this.reason.evicts();
	}

	/**
	 * When the verdict was decided: at the winning claim's time when a greater claim took the value, at the claim's
	 * own time otherwise (it came too late, was refused or granted when it arrived).
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
			.int8(this.reason.code)
			.int32(this.keyPartition);
	}

	static Verdict decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, FORMAT, "verdict", Verdict::read);
	}

	static Verdict read(BinaryCodec.In in) throws IOException {
		return new Verdict(in.string(), in.int64(), in.string(), in.int64(), Reason.of(in.int8()), in.int32());
	}

	/** Serde of a verdict in the single-message format; the topic's own serde reads both ({@link VerdictBatch}). */
	public static final class Serde extends RecordSerde<Verdict> {

		public Serde() {
			super(Verdict::encode, Verdict::decode);
		}

	}

}
