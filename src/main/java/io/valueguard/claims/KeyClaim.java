package io.valueguard.claims;

import java.util.Map;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;
import org.jspecify.annotations.Nullable;

/**
 * A key's entry in the {@code bindings} store: the value its latest record claims (null after a tombstone), that
 * claim's effective timestamp, which is also the key's clock, whether the key holds the value ({@code bound}: false
 * once evicted or refused) and, under first-wins, whether the claim still waits for the value stage's grant
 * ({@code pending}: not bound yet, not refused yet). The entry outlives the binding so that the key's clock never
 * goes back. While the key's name is being erased ({@code erasing}: how many value stage partitions have yet to
 * report that they erased it) the entry holds nothing and names no value; once all have, it is deleted.
 */
public record KeyClaim(@Nullable String value, long timestamp, boolean bound, boolean pending, int erasing) {

	/** A claim that is decided, bound or not. */
	public KeyClaim(@Nullable String value, long timestamp, boolean bound) {
		this(value, timestamp, bound, false, 0);
	}

	public KeyClaim(@Nullable String value, long timestamp, boolean bound, boolean pending) {
		this(value, timestamp, bound, pending, 0);
	}

	/** A first-wins claim the value stage has not ruled on yet. */
	static KeyClaim awaitingGrant(String value, long timestamp) {
		return new KeyClaim(value, timestamp, false, true);
	}

	/** A key whose name is being erased at clock {@code timestamp}, awaiting {@code reports} value stage reports. */
	static KeyClaim erasing(long timestamp, int reports) {
		return new KeyClaim(null, timestamp, false, false, reports);
	}

	/** True while the key's name is being erased: claims of it are refused until it is done. */
	public boolean isErasing() {
		return this.erasing > 0;
	}

	/** True when the key's latest record claims {@code value} at exactly {@code timestamp}. */
	public boolean isClaim(String value, long timestamp) {
		return value.equals(this.value) && this.timestamp == timestamp;
	}

	/** The value the key holds now, or null. */
	public @Nullable String boundValue() {
		return this.bound ? this.value : null;
	}

	/** True while the key holds its value or may yet be granted it: moving away must release it. */
	boolean mayHold() {
		return this.bound || this.pending;
	}

	/**
	 * Format 1 for a decided claim, as every earlier release wrote it; format 2 adds the pending flag, format 3 the
	 * erasure's awaited reports.
	 */
	private static final byte DECIDED = 1;

	private static final byte WITH_PENDING = 2;

	private static final byte ERASING = 3;

	byte[] encode() {
		if (this.erasing > 0) {
			return BinaryCodec.encode(ERASING, (out) -> out.nullableString(this.value)
				.int64(this.timestamp)
				.bool(this.bound)
				.bool(this.pending)
				.int32(this.erasing));
		}
		if (!this.pending) {
			return BinaryCodec.encode(DECIDED,
					(out) -> out.nullableString(this.value).int64(this.timestamp).bool(this.bound));
		}
		return BinaryCodec.encode(WITH_PENDING,
				(out) -> out.nullableString(this.value).int64(this.timestamp).bool(this.bound).bool(this.pending));
	}

	static KeyClaim decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, "key claim", Map.of(DECIDED,
				(in) -> new KeyClaim(in.nullableString(), in.int64(), in.bool()), WITH_PENDING,
				(in) -> new KeyClaim(in.nullableString(), in.int64(), in.bool(), in.bool()), ERASING,
				(in) -> new KeyClaim(in.nullableString(), in.int64(), in.bool(), in.bool(), in.int32())));
	}

	/** Serde of the bindings store. */
	public static final class Serde extends RecordSerde<KeyClaim> {

		public Serde() {
			super(KeyClaim::encode, KeyClaim::decode);
		}

	}

}
