package io.valueguard.routing;

import java.time.Duration;

/**
 * No instance could answer within the retry budget (starting, rebalancing, restoring, unreachable), or this instance
 * cannot answer a lookup forwarded to it now.
 */
public class StoreUnavailableException extends RuntimeException {

	public StoreUnavailableException(String store, String reason, Duration budget) {
		super("The " + store + " store could not answer within " + budget.toMillis() + " ms (" + reason
				+ "); retry shortly");
	}

	/** A forwarded lookup, tried once: the asking instance retries. */
	public StoreUnavailableException(String store, String reason) {
		super("The " + store + " store cannot answer here now (" + reason + "); retry shortly");
	}

}
