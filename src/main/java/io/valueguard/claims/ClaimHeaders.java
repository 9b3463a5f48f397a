package io.valueguard.claims;

import org.apache.kafka.common.header.Headers;

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
	 * travel back.
	 */
	public static final String WAITING = "valueguard.waiting";

	/**
	 * Who wrote the record through the REST API: the authenticated caller's name (a bearer token's subject, a Basic
	 * user's name), in UTF-8; absent while the API is open. The claims topic thereby says who made each claim,
	 * release and erasure; the stages do not read it.
	 */
	public static final String PRINCIPAL = "valueguard.principal";

	private ClaimHeaders() {
	}

	static boolean isErasure(Headers headers) {
		return headers.lastHeader(ERASE) != null;
	}

	static boolean isWaitedFor(Headers headers) {
		return headers.lastHeader(WAITING) != null;
	}

}
