package io.valueguard.claims;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

import io.valueguard.config.ValueGuardProperties;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonPointer;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * How a record value on the claims topic carries the claimed value ({@code valueguard.claims.format}), both ways:
 * reading a record's value, and writing one for a claim made through REST.
 */
public sealed interface ClaimFormat {

	/** What a record value says: a claim of {@code value}, a release (both null), or why it is not valid. */
	record Reading(@Nullable String value, @Nullable ClaimRejection rejection) {

		static final Reading RELEASE = new Reading(null, null);

		static Reading claim(String value) {
			return new Reading(value, null);
		}

		static Reading reject(ClaimRejection rejection) {
			return new Reading(null, rejection);
		}

	}

	/** Reads a record value that is not a tombstone. */
	Reading read(byte[] value);

	/** The record value that claims {@code value}. */
	String write(String value);

	static ClaimFormat of(ValueGuardProperties.Claims claims) {
		return switch (claims.format()) {
			case TEXT -> new Text();
			case JSON -> new Json(claims.valuePointer());
		};
	}

	/** The record value is the claimed value, as strict UTF-8. */
	record Text() implements ClaimFormat {

		@Override
		public Reading read(byte[] value) {
			String text = decode(value);
			return (text != null) ? Reading.claim(text) : Reading.reject(ClaimRejection.VALUE_NOT_UTF8);
		}

		@Override
		public String write(String value) {
			return value;
		}

	}

	/**
	 * The record value is a JSON document and the claimed value is the string at the pointer, or the JSON text of a
	 * number or boolean there. A document without the field, or with null there, gives up what the key holds, as a
	 * tombstone does.
	 */
	final class Json implements ClaimFormat {

		private static final JsonMapper JSON = JsonMapper.builder()
			.enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
			.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
			.build();

		private final JsonPointer pointer;

		Json(String pointer) {
			try {
				this.pointer = JsonPointer.compile(pointer);
			}
			catch (IllegalArgumentException ex) {
				throw new IllegalArgumentException("valueguard.claims.value-pointer '" + pointer
						+ "' is not a JSON Pointer (RFC 6901), such as /email: " + ex.getMessage(), ex);
			}
		}

		@Override
		public Reading read(byte[] value) {
			JsonNode document;
			try {
				document = JSON.readTree(value);
			}
			catch (JacksonException ex) {
				return Reading.reject(ClaimRejection.VALUE_NOT_JSON);
			}
			if (document == null || document.isMissingNode()) {
				return Reading.reject(ClaimRejection.VALUE_NOT_JSON);
			}
			JsonNode node = document.at(this.pointer);
			if (node.isMissingNode() || node.isNull()) {
				return Reading.RELEASE;
			}
			if (node.isContainer()) {
				return Reading.reject(ClaimRejection.POINTER_NOT_SCALAR);
			}
			return Reading.claim(node.isString() ? node.stringValue() : node.asString());
		}

		/** A document with the value at the pointer, nested objects for every step of it. */
		@Override
		public String write(String value) {
			if (this.pointer.matches()) {
				return JSON.writeValueAsString(value);
			}
			ObjectNode root = JSON.createObjectNode();
			ObjectNode parent = root;
			JsonPointer step = this.pointer;
			while (!step.tail().matches()) {
				parent = parent.putObject(step.getMatchingProperty());
				step = step.tail();
			}
			parent.put(step.getMatchingProperty(), value);
			return JSON.writeValueAsString(root);
		}

	}

	/** The bytes as strict UTF-8, or null when they are not valid UTF-8 (never a replacement character). */
	static @Nullable String decode(byte[] bytes) {
		// keys and values are mostly ASCII, which is valid UTF-8 as it stands: no decoder, no buffer (each claim
		// decodes two strings, and the decoder's allocations showed in recordings of the pipeline)
		if (isAscii(bytes)) {
			return new String(bytes, StandardCharsets.US_ASCII);
		}
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

	private static boolean isAscii(byte[] bytes) {
		for (byte each : bytes) {
			if (each < 0) {
				return false;
			}
		}
		return true;
	}

}
