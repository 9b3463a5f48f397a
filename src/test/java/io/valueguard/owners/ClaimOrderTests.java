package io.valueguard.owners;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClaimOrderTests {

	@Test
	void shouldOrderByTimestampFirst() {
		assertThat(ClaimOrder.compare(2, "a", 1, "z")).isPositive();
		assertThat(ClaimOrder.compare(1, "z", 2, "a")).isNegative();
	}

	@Test
	void shouldBreakTiesByGreaterKey() {
		assertThat(ClaimOrder.compare(1, "bob", 1, "alice")).isPositive();
		assertThat(ClaimOrder.compare(1, "alice", 1, "alice")).isZero();
		assertThat(ClaimOrder.compare(1, "al", 1, "alice")).isNegative();
	}

	@Test
	void shouldCompareKeysAsUtf8BytesWhenKeysAreArbitraryUnicode() {
		Random random = new Random(42);
		List<String> alphabet = List.of("a", "z", "\u00E9", "\u4E2D", "\uFF21", "\uD83D\uDE00", "\uD834\uDD1E", "\u0000");
		for (int i = 0; i < 10_000; i++) {
			String a = word(random, alphabet);
			String b = word(random, alphabet);
			int expected = Integer.signum(Arrays.compareUnsigned(a.getBytes(StandardCharsets.UTF_8),
					b.getBytes(StandardCharsets.UTF_8)));
			assertThat(Integer.signum(ClaimOrder.compareKeys(a, b))).as("%s vs %s", a, b).isEqualTo(expected);
		}
	}

	private static String word(Random random, List<String> alphabet) {
		StringBuilder word = new StringBuilder();
		int length = random.nextInt(4);
		for (int i = 0; i < length; i++) {
			word.append(alphabet.get(random.nextInt(alphabet.size())));
		}
		return word.toString();
	}

}
