package io.valueguard.security;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import org.springframework.security.web.firewall.StrictHttpFirewall;

import static org.assertj.core.api.Assertions.assertThat;

/** The firewall's rules without regular expressions decide as Spring Security's own do, for every code point. */
class HeaderCharactersTests {

	@Test
	void shouldDecideEveryCodePointAsTheFirewallDoes() {
		for (int codePoint = 0; codePoint <= Character.MAX_CODE_POINT; codePoint++) {
			String text = "a" + Character.toString(codePoint) + "z";
			assertThat(HeaderCharacters.name(text)).as("name with U+%04X", codePoint)
				.isEqualTo(StrictHttpFirewall.ALLOWED_HEADER_NAMES.test(text))
				.isEqualTo(StrictHttpFirewall.ALLOWED_PARAMETER_NAMES.test(text));
			assertThat(HeaderCharacters.value(text)).as("value with U+%04X", codePoint)
				.isEqualTo(StrictHttpFirewall.ALLOWED_HEADER_VALUES.test(text));
		}
	}

	@Test
	void shouldDecideMixedTextAsTheFirewallDoes() {
		// printable ASCII, tabs, controls, Latin-1, unassigned and lone or paired surrogates, in random strings
		char[] alphabet = { 'a', 'Z', '0', ' ', '~', '\t', '\n', '\u0000', '\u007f', '\u0085', '\u00a0', '\u00e9',
				'\u0378', '\u20ac', '\ud83d', '\ude00', '\uffff', '\ufeff' };
		SplittableRandom random = new SplittableRandom(20261202);
		for (int i = 0; i < 100_000; i++) {
			char[] text = new char[random.nextInt(0, 12)];
			for (int j = 0; j < text.length; j++) {
				text[j] = alphabet[random.nextInt(alphabet.length)];
			}
			String candidate = new String(text);
			assertThat(HeaderCharacters.name(candidate)).as("name %s", candidate.chars().boxed().toList())
				.isEqualTo(StrictHttpFirewall.ALLOWED_HEADER_NAMES.test(candidate));
			assertThat(HeaderCharacters.value(candidate)).as("value %s", candidate.chars().boxed().toList())
				.isEqualTo(StrictHttpFirewall.ALLOWED_HEADER_VALUES.test(candidate));
		}
	}

}
