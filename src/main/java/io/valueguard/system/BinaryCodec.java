package io.valueguard.system;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.errors.SerializationException;
import org.jspecify.annotations.Nullable;

/**
 * A compact, versioned binary layout for the records on internal topics and in state stores. Each record type
 * writes a format byte first, so that a later release can read what an earlier one wrote.
 */
public final class BinaryCodec {

	private BinaryCodec() {
	}

	@FunctionalInterface
	public interface FieldWriter {

		void write(Out out) throws IOException;

	}

	@FunctionalInterface
	public interface FieldReader<T> {

		T read(In in) throws IOException;

	}

	public static byte[] encode(byte format, FieldWriter fields) {
		ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
		try (DataOutputStream data = new DataOutputStream(bytes)) {
			data.writeByte(format);
			fields.write(new Out(data));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return bytes.toByteArray();
	}

	public static <T> @Nullable T decode(byte @Nullable [] bytes, byte format, String type, FieldReader<T> fields) {
		if (bytes == null) {
			return null;
		}
		try (DataInputStream data = new DataInputStream(new java.io.ByteArrayInputStream(bytes))) {
			byte found = data.readByte();
			if (found != format) {
				throw new SerializationException("Unknown " + type + " format " + found + ", expected " + format);
			}
			return fields.read(new In(data));
		}
		catch (IOException ex) {
			throw new SerializationException("Corrupt " + type + " record of " + bytes.length + " bytes", ex);
		}
	}

	public record Out(DataOutputStream data) {

		public Out string(String value) throws IOException {
			byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
			this.data.writeInt(utf8.length);
			this.data.write(utf8);
			return this;
		}

		public Out nullableString(@Nullable String value) throws IOException {
			this.data.writeBoolean(value != null);
			return (value != null) ? string(value) : this;
		}

		public Out int64(long value) throws IOException {
			this.data.writeLong(value);
			return this;
		}

		public Out int32(int value) throws IOException {
			this.data.writeInt(value);
			return this;
		}

		public Out bool(boolean value) throws IOException {
			this.data.writeBoolean(value);
			return this;
		}

	}

	public record In(DataInputStream data) {

		public String string() throws IOException {
			int length = this.data.readInt();
			if (length < 0 || length > this.data.available()) {
				throw new IOException("String length " + length + " out of range");
			}
			return new String(this.data.readNBytes(length), StandardCharsets.UTF_8);
		}

		public @Nullable String nullableString() throws IOException {
			return this.data.readBoolean() ? string() : null;
		}

		public long int64() throws IOException {
			return this.data.readLong();
		}

		public int int32() throws IOException {
			return this.data.readInt();
		}

		public boolean bool() throws IOException {
			return this.data.readBoolean();
		}

	}

}
