package io.valueguard.claims;

import org.apache.kafka.common.header.Headers;

/**
 * How a record of the claims topic asks for its key's name to be erased: a tombstone with the header
 * {@value #HEADER}, whatever its value (docs/design.md, "Erasure"). Any producer may send one; the REST API's
 * {@code DELETE ?erase=true} does.
 */
public final class ErasureRequest {

	public static final String HEADER = "valueguard.erase";

	private ErasureRequest() {
	}

	static boolean isErasure(Headers headers) {
		return headers.lastHeader(HEADER) != null;
	}

}
