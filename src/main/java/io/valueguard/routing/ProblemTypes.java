package io.valueguard.routing;

import java.net.URI;

/**
 * The {@code type} URIs of the RFC 9457 problem bodies ValueGuard writes, on the public endpoints and between
 * instances alike, and how long a client should wait before asking again after a 503.
 */
public final class ProblemTypes {

	/** {@code Retry-After} of every 503: a rebalance or a restore usually ends within a few seconds. */
	public static final String RETRY_AFTER_SECONDS = "2";

	private ProblemTypes() {
	}

	/** The {@code type} of a problem body, by kind ({@code not-found}, {@code store-unavailable}, ...). */
	public static URI of(String kind) {
		return URI.create("https://valueguard.io/problems/" + kind);
	}

}
