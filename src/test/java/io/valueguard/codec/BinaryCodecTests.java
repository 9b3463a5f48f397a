package io.valueguard.codec;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class BinaryCodecTests {

	private static final byte FORMAT = 7;

	@Test
	void shouldWriteEveryStringAsItsLengthAndUtf8BytesWhateverItsCharacters() {
		// ASCII, the last ASCII and first other character, non-ASCII after an ASCII start, and past the first buffer
		List<String> strings = List.of("", "abc", "\u007f", "\u0080", "ab\u00e4cd", "k\uD83D\uDE00",
				"x".repeat(100) + "\u4E2D", "y".repeat(1_000));
		for (String string : strings) {
			byte[] utf8 = string.getBytes(StandardCharsets.UTF_8);
			ByteBuffer expected = ByteBuffer.allocate(1 + 4 + utf8.length + 8).put(FORMAT).putInt(utf8.length).put(utf8)
				.putLong(42);

			byte[] written = BinaryCodec.encode(FORMAT, 8, (out) -> out.string(string).int64(42));

			assertThat(written).as(string).isEqualTo(expected.array());
			String read = BinaryCodec.decode(written, FORMAT, "test", (in) -> in.string() + "/" + in.int64());
			assertThat(read).isEqualTo(string + "/42");
		}
	}

}
