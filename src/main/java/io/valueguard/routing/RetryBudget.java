package io.valueguard.routing;

import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.function.LongFunction;
import java.util.function.Supplier;

import io.valueguard.config.QueryProperties;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jspecify.annotations.Nullable;

/**
 * Retries a query through rebalances, restores and unreachable instances for {@code valueguard.query.retry-budget},
 * pausing {@code retry-backoff} between attempts, then gives up with a {@link StoreUnavailableException} (503).
 */
final class RetryBudget {

	private RetryBudget() {
	}

	/**
	 * Runs {@code attempt} until it returns an answer; null, or one of the exceptions that a moving partition
	 * causes, means try again.
	 */
	static <T> T retry(QueryProperties properties, String store, Supplier<@Nullable T> attempt) {
		return retryUntil(properties, store, (deadline) -> attempt.get());
	}

	/**
	 * The same, telling each attempt when the budget ends ({@link System#nanoTime()}), so that it waits for no
	 * answer beyond it: a call to a frozen instance would otherwise keep its caller a whole read timeout past it.
	 */
	static <T> T retryUntil(QueryProperties properties, String store, LongFunction<@Nullable T> attempt) {
		long deadline = System.nanoTime() + properties.retryBudget().toNanos();
		String problem = "no instance holds every partition asked for in a queryable state";
		while (true) {
			try {
				T answer = attempt.apply(deadline);
				if (answer != null) {
					return answer;
				}
			}
			catch (InvalidStateStoreException | RemoteInstances.UnavailableException ex) {
				problem = ex.getMessage();
			}
			catch (CompletionException ex) {
				if (!(ex.getCause() instanceof InvalidStateStoreException)
						&& !(ex.getCause() instanceof RemoteInstances.UnavailableException)) {
					throw ex;
				}
				problem = ex.getCause().getMessage();
			}
			if (System.nanoTime() + properties.retryBackoff().toNanos() > deadline) {
				throw new StoreUnavailableException(store, problem, properties.retryBudget());
			}
			pause(properties.retryBackoff());
		}
	}

	private static void pause(Duration backoff) {
		try {
			Thread.sleep(backoff.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException("Interrupted while waiting to retry a query", ex);
		}
	}

}
