package io.valueguard.codec;

import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

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

	/** Writes one element of a list. */
	@FunctionalInterface
	public interface ElementWriter<T> {

		void write(Out out, T element) throws IOException;

	}

	public static byte[] encode(byte format, FieldWriter fields) {
		return encode(format, 64, fields);
	}

	/**
	 * Like {@link #encode(byte, FieldWriter)}, into a buffer of {@code expectedBytes} (format byte included): a batch
	 * that knows its size about is written without growing and copying its buffer.
	 */
	public static byte[] encode(byte format, int expectedBytes, FieldWriter fields) {
		Out out = new Out(expectedBytes);
		try {
			out.bytes(1).put(format);
			fields.write(out);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return out.toByteArray();
	}

	public static <T> @Nullable T decode(byte @Nullable [] bytes, byte format, String type, FieldReader<T> fields) {
		return decode(bytes, type, (found) -> (found == format) ? fields : null, "expected " + format);
	}

	/**
	 * Reads a record type that has had two formats: each format byte with its own reader, so that records an earlier
	 * release wrote stay readable.
	 */
	public static <T> @Nullable T decode(byte @Nullable [] bytes, String type, byte oldFormat, FieldReader<T> oldFields,
			byte format, FieldReader<T> fields) {
		return decode(bytes, type, (found) -> (found == format) ? fields : (found == oldFormat) ? oldFields : null,
				"expected " + oldFormat + " or " + format);
	}

	/** Reads a record type that has had several formats: a reader for each format byte still readable. */
	public static <T> @Nullable T decode(byte @Nullable [] bytes, String type, Map<Byte, FieldReader<T>> readers) {
		return decode(bytes, type, readers::get, "expected one of " + new TreeSet<>(readers.keySet()));
	}

	private static <T> @Nullable T decode(byte @Nullable [] bytes, String type,
			Function<Byte, @Nullable FieldReader<T>> readers, String expected) {
		if (bytes == null) {
			return null;
		}
		try {
			In in = new In(bytes);
			byte found = in.bytes(1).get();
			FieldReader<T> fields = readers.apply(found);
			if (fields == null) {
				throw new SerializationException("Unknown " + type + " format " + found + ", " + expected);
			}
			return fields.read(in);
		}
		catch (IOException ex) {
			throw new SerializationException("Corrupt " + type + " record of " + bytes.length + " bytes", ex);
		}
	}

	/**
	 * Writes fields big-endian into one growing array: the layout of {@link java.io.DataOutputStream}, without its
	 * synchronized byte-at-a-time writes, which show in the pipeline's profile.
	 */
	public static final class Out {

		private ByteBuffer buffer;

		private Out(int capacity) {
			this.buffer = ByteBuffer.allocate(Math.max(capacity, 16));
		}

		public Out string(String value) throws IOException {
			// getBytes finds ASCII and copies it with intrinsics, which a loop over the characters does not
			byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
			bytes(4 + utf8.length).putInt(utf8.length).put(utf8);
			return this;
		}

		public Out nullableString(@Nullable String value) throws IOException {
			bool(value != null);
			return (value != null) ? string(value) : this;
		}

		public Out int64(long value) throws IOException {
			bytes(8).putLong(value);
			return this;
		}

		public Out int32(int value) throws IOException {
			bytes(4).putInt(value);
			return this;
		}

		public Out bool(boolean value) throws IOException {
			bytes(1).put((byte) (value ? 1 : 0));
			return this;
		}

		/** One unsigned byte, 0 to 255. */
		public Out int8(int value) throws IOException {
			bytes(1).put((byte) value);
			return this;
		}

		/** The element count, then each element. */
		public <T> Out list(List<T> elements, ElementWriter<T> element) throws IOException {
			int32(elements.size());
			for (T each : elements) {
				element.write(this, each);
			}
			return this;
		}

		/** The buffer, with room for {@code length} more bytes. */
		private ByteBuffer bytes(int length) {
			if (this.buffer.remaining() < length) {
				ByteBuffer larger = ByteBuffer.allocate(Math.max(this.buffer.capacity() * 2, this.buffer.position() + length));
				this.buffer.flip();
				larger.put(this.buffer);
				this.buffer = larger;
			}
			return this.buffer;
		}

		private byte[] toByteArray() {
			byte[] written = this.buffer.array();
			return (this.buffer.position() == written.length) ? written : Arrays.copyOf(written, this.buffer.position());
		}

	}

	/** Reads what {@link Out} wrote; reading past the end is an {@link EOFException}. */
	public static final class In {

		private final ByteBuffer buffer;

		private In(byte[] bytes) {
			this.buffer = ByteBuffer.wrap(bytes);
		}

		public String string() throws IOException {
			int length = bytes(4).getInt();
			if (length < 0 || length > this.buffer.remaining()) {
				throw new IOException("String length " + length + " out of range");
			}
			String value = new String(this.buffer.array(), this.buffer.position(), length, StandardCharsets.UTF_8);
			this.buffer.position(this.buffer.position() + length);
			return value;
		}

		public @Nullable String nullableString() throws IOException {
			return bool() ? string() : null;
		}

		public long int64() throws IOException {
			return bytes(8).getLong();
		}

		public int int32() throws IOException {
			return bytes(4).getInt();
		}

		public boolean bool() throws IOException {
			return bytes(1).get() != 0;
		}

		/** One unsigned byte, 0 to 255. */
		public int int8() throws IOException {
			return Byte.toUnsignedInt(bytes(1).get());
		}

		public <T> List<T> list(FieldReader<T> element) throws IOException {
			int size = int32();
			// every element takes at least a byte: a larger count is corrupt, not a reason to allocate
			if (size < 0 || size > this.buffer.remaining()) {
				throw new IOException("List size " + size + " out of range");
			}
			List<T> elements = new ArrayList<>(size);
			for (int i = 0; i < size; i++) {
				elements.add(element.read(this));
			}
			return elements;
		}

		/** The buffer, after checking that {@code length} more bytes are there. */
		private ByteBuffer bytes(int length) throws EOFException {
			if (this.buffer.remaining() < length) {
				throw new EOFException("Needs " + length + " more bytes, has " + this.buffer.remaining());
			}
			return this.buffer;
		}

	}

}
