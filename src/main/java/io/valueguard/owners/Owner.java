package io.valueguard.owners;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;

/**
 * The greatest claim of a value seen so far, top(v), as kept in the {@code owners} store. {@code released} is true
 * when its key has since let go of the value: the claim still outranks older ones, but nobody holds the value. A claim
 * whose key was erased names no key ({@link #erased()}): it keeps its timestamp and outranks every claim at that
 * timestamp (docs/design.md, "Erasure").
 */
public record Owner(String key, long timestamp, int keyPartition, boolean released) {

	/** The key an erased claim names: none; a key is never empty. */
	static final String NO_KEY = "";

	public boolean holds() {
		return !this.released;
	}

	/** True when the claim's key was erased. */
	public boolean erased() {
		return this.key.isEmpty();
	}

	/** This claim with its key's name erased: released, since an erased key holds nothing. */
	Owner withKeyErased() {
		return new Owner(NO_KEY, this.timestamp, -1, true);
	}

	Owner withReleased(boolean released) {
		return new Owner(this.key, this.timestamp, this.keyPartition, released);
	}

	private static final byte FORMAT = 1;

	byte[] encode() {
		return BinaryCodec.encode(FORMAT,
				(out) -> out.string(this.key).int64(this.timestamp).int32(this.keyPartition).bool(this.released));
	}

	static Owner decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, FORMAT, "owner",
				(in) -> new Owner(in.string(), in.int64(), in.int32(), in.bool()));
	}

	/** Serde of the owners store. */
	public static final class Serde extends RecordSerde<Owner> {

		public Serde() {
			super(Owner::encode, Owner::decode);
		}

	}

}
