package io.valueguard.query;

/** The store cannot answer now (starting, rebalancing, restoring): the client should retry shortly. */
public class StoreUnavailableException extends RuntimeException {

	StoreUnavailableException(String store, Throwable cause) {
		super("The " + store + " store is not available on this instance right now (starting, rebalancing or "
				+ "restoring); retry shortly", cause);
	}

}
