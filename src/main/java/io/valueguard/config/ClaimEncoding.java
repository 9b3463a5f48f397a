package io.valueguard.config;

/** How the claims topic's record values carry the claimed value. */
public enum ClaimEncoding {

	/** The record value is the claimed value, as UTF-8 text. */
	TEXT,

	/** The record value is a JSON document; the claimed value sits at {@code valueguard.claims.value-pointer}. */
	JSON

}
