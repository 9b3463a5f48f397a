package io.valueguard.claims;

import org.apache.kafka.common.header.Headers;

/**
 * Headers of a claims record that ask the key stage for more than a claim or a release. Any producer may send them;
 * the REST API does.
 */
public final class ClaimHeaders {

	/**
	 * On a tombstone: erase the key's name too (docs/design.md, "Erasure"), whatever the header's value.
	 * {@code DELETE ?erase=true} sends it.
	 */
	public static final String ERASE = "valueguard.erase";

	/**
	 * Someone waits for the ruling on this record ({@code PUT ?wait=}): the key stage commits as soon as it has applied
	 * it, rather than at its next scheduled commit, within the bound of one prompt commit per commit interval.
	 */
	public static final String WAITING = "valueguard.waiting";

	private ClaimHeaders() {
	}

	static boolean isErasure(Headers headers) {
		return headers.lastHeader(ERASE) != null;
	}

	static boolean isWaitedFor(Headers headers) {
		return headers.lastHeader(WAITING) != null;
	}

}
