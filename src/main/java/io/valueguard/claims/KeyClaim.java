package io.valueguard.claims;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;
import org.jspecify.annotations.Nullable;

/**
 * A key's entry in the {@code bindings} store: the value its latest record claims (null after a tombstone), that
 * claim's effective timestamp, which is also the key's clock, and whether the key still holds the value (false once
 * evicted). The entry outlives the binding so that the key's clock never goes back.
 */
public record KeyClaim(@Nullable String value, long timestamp, boolean bound) {

	/** True when the key's latest record claims {@code value} at exactly {@code timestamp}. */
	public boolean isClaim(String value, long timestamp) {
		return value.equals(this.value) && this.timestamp == timestamp;
	}

	/** The value the key holds now, or null. */
	public @Nullable String boundValue() {
		return this.bound ? this.value : null;
	}

	private static final byte FORMAT = 1;

	byte[] encode() {
		return BinaryCodec.encode(FORMAT,
				(out) -> out.nullableString(this.value).int64(this.timestamp).bool(this.bound));
	}

	static KeyClaim decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, FORMAT, "key claim",
				(in) -> new KeyClaim(in.nullableString(), in.int64(), in.bool()));
	}

	/** Serde of the bindings store. */
	public static final class Serde extends RecordSerde<KeyClaim> {

		public Serde() {
			super(KeyClaim::encode, KeyClaim::decode);
		}

	}

}
