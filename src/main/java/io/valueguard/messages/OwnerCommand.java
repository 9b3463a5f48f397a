package io.valueguard.messages;

import java.io.IOException;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;

/**
 * What the key stage tells the value stage about one value (the record key): a key claims it, or a key lets go of
 * it; or, about no value in particular, that a key's name is to be erased from every value of the partition
 * ({@link Type#ERASE}, with the key's clock at the erasure as its timestamp). {@code keyPartition} is the claims
 * partition that holds the key, so that verdicts go back to exactly the task that owns it, whatever partitioner
 * produced the claims.
 */
public record OwnerCommand(Type type, String key, long timestamp, int keyPartition) {

	public enum Type {

		CLAIM, RELEASE, ERASE

	}

	public static OwnerCommand claim(String key, long timestamp, int keyPartition) {
		return new OwnerCommand(Type.CLAIM, key, timestamp, keyPartition);
	}

	public static OwnerCommand release(String key, long timestamp, int keyPartition) {
		return new OwnerCommand(Type.RELEASE, key, timestamp, keyPartition);
	}

	/**
	 * Erase {@code key}'s name from the partition's values: every claim of it at or before {@code clock}, the key's
	 * clock when the erasure was asked for (docs/design.md, "Erasure").
	 */
	public static OwnerCommand erase(String key, long clock, int keyPartition) {
		return new OwnerCommand(Type.ERASE, key, clock, keyPartition);
	}

	/** The single-message format of a command: one per record, the record key naming the value. */
	static final byte FORMAT = 1;

	byte[] encode() {
		return BinaryCodec.encode(FORMAT, this::write);
	}

	/** The fields after the format byte; a batch repeats them after each value. No erasure has this form. */
	void write(BinaryCodec.Out out) throws IOException {
		out.bool(this.type == Type.CLAIM).string(this.key).int64(this.timestamp).int32(this.keyPartition);
	}

	/** The fields with the type as a byte (its ordinal): the form of a batch that carries an erasure. */
	void writeTyped(BinaryCodec.Out out) throws IOException {
		out.int8(this.type.ordinal()).string(this.key).int64(this.timestamp).int32(this.keyPartition);
	}

	static OwnerCommand decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, FORMAT, "owner command", OwnerCommand::read);
	}

	static OwnerCommand read(BinaryCodec.In in) throws IOException {
		return new OwnerCommand(in.bool() ? Type.CLAIM : Type.RELEASE, in.string(), in.int64(), in.int32());
	}

	static OwnerCommand readTyped(BinaryCodec.In in) throws IOException {
		int type = in.int8();
		if (type < 0 || type >= Type.values().length) {
			throw new IOException("Unknown owner command type " + type);
		}
		return new OwnerCommand(Type.values()[type], in.string(), in.int64(), in.int32());
	}

	/** Serde of a command in the single-message format; the topic's own serde reads both ({@link CommandBatch}). */
	public static final class Serde extends RecordSerde<OwnerCommand> {

		public Serde() {
			super(OwnerCommand::encode, OwnerCommand::decode);
		}

	}

}
