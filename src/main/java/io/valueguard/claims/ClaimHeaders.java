package io.valueguard.claims;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * Headers of a claims record that ask the key stage for more than a claim or a release, and the one that says who
 * wrote it. Any producer may send them; the REST API does.
 */
public final class ClaimHeaders {

	/**
	 * On a tombstone: erase the key's name too (docs/design.md, "Erasure"), whatever the header's value.
	 * {@code DELETE ?erase=true} sends it.
	 */
	public static final String ERASE = "valueguard.erase";

	/**
	 * Someone waits for the ruling on this record ({@code PUT ?wait=}): once the key stage has applied it, it commits
	 * as soon as its commit throttle allows rather than at its next scheduled commit, and the batch that carries the
	 * command says so ({@code CommandBatch.WAITED_FOR}), so that the value stage does the same for a ruling that must
	 * travel back. On an erasure ({@code DELETE ?erase=true&wait=}) the same goes for its commands.
	 */
	public static final String WAITING = "valueguard.waiting";

	/**
	 * Who wrote the record through the REST API: the authenticated caller's name (a bearer token's subject, a Basic
	 * user's name), in UTF-8; absent while the API is open. The claims topic thereby says who made each claim,
	 * release and erasure; the stages do not read it.
	 */
	public static final String PRINCIPAL = "valueguard.principal";

	/**
	 * On a tombstone or a claim: apply it only if the key's latest claim is of this value (UTF-8; the value as the key
	 * stage keeps it, so for JSON claims the one at {@code valueguard.claims.value-pointer}), and otherwise change
	 * nothing ({@link ClaimCondition}): a conditional release, or a move from that value. {@code DELETE ?value=} and
	 * {@code PUT ?from=} send it.
	 */
	public static final String IF_VALUE = "valueguard.if-value";

	/**
	 * With {@link #IF_VALUE}: and only if that claim's effective timestamp is this one (decimal milliseconds, as
	 * {@code GET /api/claims/{key}} shows it). {@code DELETE ?value=} and {@code PUT ?from=} send the one they read.
	 */
	public static final String IF_TIMESTAMP = "valueguard.if-timestamp";

	private ClaimHeaders() {
	}

	/**
	 * The condition a record's headers set on it; null when they set none.
	 * @throws IllegalArgumentException when they set one that cannot be read: a value that is not UTF-8, a timestamp
	 * that is not a number, or a timestamp without a value
	 */
	static @Nullable ClaimCondition condition(Headers headers) {
		Header value = headers.lastHeader(IF_VALUE);
		Header timestamp = headers.lastHeader(IF_TIMESTAMP);
		if (value == null && timestamp == null) {
			return null;
		}
		if (value == null || value.value() == null) {
			throw new IllegalArgumentException("no " + IF_VALUE);
		}
		String expected = ClaimFormat.decode(value.value());
		if (expected == null || expected.isEmpty()) {
			throw new IllegalArgumentException(IF_VALUE + " is empty or not UTF-8");
		}
		return new ClaimCondition(expected, (timestamp != null) ? number(timestamp.value()) : null);
	}

	private static long number(byte @Nullable [] bytes) {
		try {
			return Long.parseLong(new String((bytes != null) ? bytes : new byte[0], StandardCharsets.US_ASCII));
		}
		catch (NumberFormatException ex) {
			throw new IllegalArgumentException(IF_TIMESTAMP + " is not a number", ex);
		}
	}

	static boolean isErasure(Headers headers) {
		return headers.lastHeader(ERASE) != null;
	}

	static boolean isWaitedFor(Headers headers) {
		return headers.lastHeader(WAITING) != null;
	}

}
