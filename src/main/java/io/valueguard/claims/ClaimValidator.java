package io.valueguard.claims;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import io.valueguard.system.ValueGuardProperties;
import org.jspecify.annotations.Nullable;

/** Decides whether raw bytes from the claims topic make a valid claim, and decodes them if they do. */
public final class ClaimValidator {

	/** A decoded claim ({@code value} null for a tombstone), or the reason the record is not one. */
	public record Verdict(@Nullable String key, @Nullable String value, @Nullable ClaimRejection rejection) {

		public boolean valid() {
			return this.rejection == null;
		}

	}

	private final int maxKeyBytes;

	private final int maxValueBytes;

	public ClaimValidator(ValueGuardProperties.Limits limits) {
		this.maxKeyBytes = limits.maxKeyBytes();
		this.maxValueBytes = limits.maxValueBytes();
	}

	public Verdict validate(byte @Nullable [] key, byte @Nullable [] value) {
		if (key == null || key.length == 0) {
			return reject(ClaimRejection.MISSING_KEY);
		}
		if (key.length > this.maxKeyBytes) {
			return reject(ClaimRejection.KEY_TOO_LONG);
		}
		String decodedKey = decode(key);
		if (decodedKey == null) {
			return reject(ClaimRejection.KEY_NOT_UTF8);
		}
		if (value == null) {
			return new Verdict(decodedKey, null, null);
		}
		if (value.length == 0) {
			return reject(ClaimRejection.EMPTY_VALUE);
		}
		if (value.length > this.maxValueBytes) {
			return reject(ClaimRejection.VALUE_TOO_LONG);
		}
		String decodedValue = decode(value);
		if (decodedValue == null) {
			return reject(ClaimRejection.VALUE_NOT_UTF8);
		}
		return new Verdict(decodedKey, decodedValue, null);
	}

	/** The same limits for text that arrives over HTTP: empty values are invalid there too. */
	public @Nullable ClaimRejection validateText(String key, @Nullable String value) {
		int keyBytes = key.getBytes(StandardCharsets.UTF_8).length;
		if (keyBytes == 0) {
			return ClaimRejection.MISSING_KEY;
		}
		if (keyBytes > this.maxKeyBytes) {
			return ClaimRejection.KEY_TOO_LONG;
		}
		if (value == null) {
			return null;
		}
		int valueBytes = value.getBytes(StandardCharsets.UTF_8).length;
		if (valueBytes == 0) {
			return ClaimRejection.EMPTY_VALUE;
		}
		return (valueBytes > this.maxValueBytes) ? ClaimRejection.VALUE_TOO_LONG : null;
	}

	private static Verdict reject(ClaimRejection rejection) {
		return new Verdict(null, null, rejection);
	}

	/** The bytes as strict UTF-8, or null when they are not valid UTF-8 (never a replacement character). */
	public static @Nullable String decode(byte[] bytes) {
		try {
			// a decoder per call: decoders are stateful and this runs on several stream threads
			return StandardCharsets.UTF_8.newDecoder()
				.onMalformedInput(CodingErrorAction.REPORT)
				.onUnmappableCharacter(CodingErrorAction.REPORT)
				.decode(ByteBuffer.wrap(bytes))
				.toString();
		}
		catch (CharacterCodingException ex) {
			return null;
		}
	}

}
