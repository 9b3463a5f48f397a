package io.valueguard.owners;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;

/**
 * An erasure a value stage task has yet to carry out, kept in its {@code erasures} store under the erased key:
 * erase the key's claims up to {@code clock}, then report to the key on {@code keyPartition}.
 */
public record Erasure(long clock, int keyPartition) {

	private static final byte FORMAT = 1;

	byte[] encode() {
		return BinaryCodec.encode(FORMAT, (out) -> out.int64(this.clock).int32(this.keyPartition));
	}

	static Erasure decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, FORMAT, "erasure", (in) -> new Erasure(in.int64(), in.int32()));
	}

	/** Serde of the erasures store. */
	public static final class Serde extends RecordSerde<Erasure> {

		public Serde() {
			super(Erasure::encode, Erasure::decode);
		}

	}

}
