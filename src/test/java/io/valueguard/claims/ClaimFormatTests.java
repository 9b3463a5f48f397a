package io.valueguard.claims;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.valueguard.config.ClaimEncoding;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.support.TestProperties;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ClaimFormatTests {

	private final ClaimFormat email = json("/email");

	@Test
	void shouldReadStringAtPointer() {
		assertThat(read(this.email, "{\"id\":7,\"email\":\"ada@example.com\"}"))
			.isEqualTo(ClaimFormat.Reading.claim("ada@example.com"));
		assertThat(read(json("/contact/emails/0"), "{\"contact\":{\"emails\":[\"a@x\",\"b@x\"]}}"))
			.isEqualTo(ClaimFormat.Reading.claim("a@x"));
	}

	@Test
	void shouldReadNumbersAndBooleansAsTheirJsonText() {
		assertThat(read(this.email, "{\"email\":42}").value()).isEqualTo("42");
		assertThat(read(this.email, "{\"email\":1.50}").value()).isEqualTo("1.50");
		assertThat(read(this.email, "{\"email\":12345678901234567890}").value()).isEqualTo("12345678901234567890");
		assertThat(read(this.email, "{\"email\":true}").value()).isEqualTo("true");
	}

	@Test
	void shouldGiveUpWhenFieldIsMissingOrNull() {
		assertThat(read(this.email, "{\"id\":7}")).isEqualTo(ClaimFormat.Reading.RELEASE);
		assertThat(read(this.email, "{\"email\":null}")).isEqualTo(ClaimFormat.Reading.RELEASE);
	}

	@Test
	void shouldRejectWhatIsNotJsonOrNotScalar() {
		assertThat(read(this.email, "ada@example.com").rejection()).isEqualTo(ClaimRejection.VALUE_NOT_JSON);
		assertThat(read(this.email, "{\"email\":").rejection()).isEqualTo(ClaimRejection.VALUE_NOT_JSON);
		assertThat(read(this.email, "{\"email\":\"a\"} trailing").rejection())
			.isEqualTo(ClaimRejection.VALUE_NOT_JSON);
		assertThat(this.email.read(new byte[] { (byte) 0xFF, (byte) 0xFE }).rejection())
			.isEqualTo(ClaimRejection.VALUE_NOT_JSON);
		assertThat(read(this.email, "{\"email\":{\"home\":\"a\"}}").rejection())
			.isEqualTo(ClaimRejection.POINTER_NOT_SCALAR);
		assertThat(read(this.email, "{\"email\":[\"a\"]}").rejection()).isEqualTo(ClaimRejection.POINTER_NOT_SCALAR);
	}

	@Test
	void shouldWriteDocumentsThatReadBack() {
		assertThat(this.email.write("ada@example.com")).isEqualTo("{\"email\":\"ada@example.com\"}");
		assertThat(json("/user/contact/email").write("a\"b")).isEqualTo("{\"user\":{\"contact\":{\"email\":\"a\\\"b\"}}}");
		assertThat(json("").write("x")).isEqualTo("\"x\"");
		for (ClaimFormat format : new ClaimFormat[] { this.email, json("/a/b"), json(""), json("/a~1b") }) {
			assertThat(read(format, format.write("v/\u00e9\uD83D\uDE00")).value()).isEqualTo("v/\u00e9\uD83D\uDE00");
		}
	}

	@Test
	void shouldDecodeStrictUtf8WithOrWithoutNonAsciiCharacters() {
		assertThat(ClaimFormat.decode(utf8("seat-42"))).isEqualTo("seat-42");
		assertThat(ClaimFormat.decode(utf8("Zoë→東京"))).isEqualTo("Zoë→東京");
		assertThat(ClaimFormat.decode(new byte[] { 0x00, 0x7F })).isEqualTo("\u0000\u007F");
		// malformed, truncated and overlong sequences are refused, not replaced
		assertThat(ClaimFormat.decode(new byte[] { 'a', (byte) 0xC3, (byte) 0x28 })).isNull();
		assertThat(ClaimFormat.decode(new byte[] { 'a', (byte) 0xE2, (byte) 0x82 })).isNull();
		assertThat(ClaimFormat.decode(new byte[] { (byte) 0xC0, (byte) 0xAF })).isNull();
		assertThat(ClaimFormat.decode(new byte[] { (byte) 0xFF })).isNull();
	}

	@Test
	void shouldMeasureATextValueAsItsBytes() {
		ValueGuardProperties properties = TestProperties.of(Map.of("valueguard.limits.max-value-bytes", 5));
		ClaimValidator validator = new ClaimValidator(properties.limits(), ClaimFormat.of(properties.claims()));

		assertThat(validator.validate(utf8("k"), utf8("ëëë")).rejection()).isEqualTo(ClaimRejection.VALUE_TOO_LONG);
		assertThat(validator.validate(utf8("k"), utf8("ëë")).value()).isEqualTo("ëë");
		assertThat(validator.validate(utf8("k"), utf8("abcde")).value()).isEqualTo("abcde");
	}

	@Test
	void shouldRefuseAPointerThatIsNotOne() {
		assertThatIllegalArgumentException().isThrownBy(() -> json("email"))
			.withMessageContaining("valueguard.claims.value-pointer");
	}

	@Test
	void shouldValidateTheClaimedValueAgainstTheLimits() {
		ValueGuardProperties properties = TestProperties.of(Map.of("valueguard.claims.format", "json",
				"valueguard.claims.value-pointer", "/email", "valueguard.limits.max-value-bytes", 5));
		ClaimValidator validator = new ClaimValidator(properties.limits(), ClaimFormat.of(properties.claims()));
		assertThat(validator.validate(utf8("k"), utf8("{\"email\":\"\"}")).rejection())
			.isEqualTo(ClaimRejection.EMPTY_VALUE);
		assertThat(validator.validate(utf8("k"), utf8("{\"email\":\"toolong\"}")).rejection())
			.isEqualTo(ClaimRejection.VALUE_TOO_LONG);
		// the limit is on the claimed value, not on the document around it
		assertThat(validator.validate(utf8("k"), utf8("{\"name\":\"a long name\",\"email\":\"ok\"}")).value())
			.isEqualTo("ok");
		assertThat(validator.validate(utf8("k"), utf8("{\"name\":\"no email\"}")))
			.isEqualTo(new ClaimValidator.Validation("k", null, null));
	}

	private static ClaimFormat json(String pointer) {
		return ClaimFormat.of(new ValueGuardProperties.Claims(ClaimEncoding.JSON, pointer, java.time.Duration.ofMinutes(1)));
	}

	private static ClaimFormat.Reading read(ClaimFormat format, String value) {
		return format.read(utf8(value));
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
