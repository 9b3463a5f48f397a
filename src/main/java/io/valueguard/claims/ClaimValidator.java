package io.valueguard.claims;

import java.nio.charset.StandardCharsets;

import io.valueguard.config.ValueGuardProperties;
import org.jspecify.annotations.Nullable;

/**
 * Decides whether raw bytes from the claims topic make a valid claim, and decodes them if they do: the key as UTF-8,
 * the value as the claims format says ({@code valueguard.claims.format}).
 */
public final class ClaimValidator {

	/** A decoded claim ({@code value} null for a tombstone), or the reason the record is not one. */
	public record Validation(@Nullable String key, @Nullable String value, @Nullable ClaimRejection rejection) {

		public boolean valid() {
			return this.rejection == null;
		}

	}

	private final int maxKeyBytes;

	private final int maxValueBytes;

	private final ClaimFormat format;

	public ClaimValidator(ValueGuardProperties.Limits limits, ClaimFormat format) {
		this.maxKeyBytes = limits.maxKeyBytes();
		this.maxValueBytes = limits.maxValueBytes();
		this.format = format;
	}

	public Validation validate(byte @Nullable [] key, byte @Nullable [] value) {
		if (key == null || key.length == 0) {
			return reject(ClaimRejection.MISSING_KEY);
		}
		if (key.length > this.maxKeyBytes) {
			return reject(ClaimRejection.KEY_TOO_LONG);
		}
		String decodedKey = ClaimFormat.decode(key);
		if (decodedKey == null) {
			return reject(ClaimRejection.KEY_NOT_UTF8);
		}
		if (value == null) {
			return new Validation(decodedKey, null, null);
		}
		if (value.length == 0) {
			return reject(ClaimRejection.EMPTY_VALUE);
		}
		if (this.format instanceof ClaimFormat.Text && value.length > this.maxValueBytes) {
			// too long whatever it decodes to: spare the decoding
			return reject(ClaimRejection.VALUE_TOO_LONG);
		}
		ClaimFormat.Reading reading = this.format.read(value);
		if (reading.rejection() != null) {
			return reject(reading.rejection());
		}
		String claimed = reading.value();
		if (claimed == null) {
			// a JSON record without the claimed field gives up what the key holds, as a tombstone does
			return new Validation(decodedKey, null, null);
		}
		if (claimed.isEmpty()) {
			return reject(ClaimRejection.EMPTY_VALUE);
		}
		// a text value is the record's bytes, measured above; a value read out of a document is measured here
		if (!(this.format instanceof ClaimFormat.Text)
				&& claimed.getBytes(StandardCharsets.UTF_8).length > this.maxValueBytes) {
			return reject(ClaimRejection.VALUE_TOO_LONG);
		}
		return new Validation(decodedKey, claimed, null);
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

	private static Validation reject(ClaimRejection rejection) {
		return new Validation(null, null, rejection);
	}

}
