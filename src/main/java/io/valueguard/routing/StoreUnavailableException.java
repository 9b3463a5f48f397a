package io.valueguard.routing;

import java.time.Duration;

/** No instance could answer within the retry budget (starting, rebalancing, restoring, unreachable). */
public class StoreUnavailableException extends RuntimeException {

	public StoreUnavailableException(String store, String reason, Duration budget) {
		super("The " + store + " store could not answer within " + budget.toMillis() + " ms (" + reason
				+ "); retry shortly");
	}

}
