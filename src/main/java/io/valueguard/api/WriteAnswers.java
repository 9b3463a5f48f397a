package io.valueguard.api;

import java.security.Principal;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;

import io.valueguard.claims.ClaimPublisher;
import io.valueguard.routing.Lookup;
import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * How a write through the API is answered: 202 with its receipt, or, for a caller that waits ({@code ?wait=}), 200
 * with the ruling once there is one.
 */
final class WriteAnswers {

	/** How much longer than the wait the server gives a waiting request before it answers 202 itself. */
	private static final Duration SERVER_GRACE = Duration.ofSeconds(5);

	private WriteAnswers() {
	}

	/** Who asks, as the claims record names them; null for an unauthenticated caller. */
	static @Nullable String nameOf(@Nullable Principal caller) {
		return (caller != null) ? caller.getName() : null;
	}

	/**
	 * A write that waits: 200 with the answer once there is one, else 202 as without waiting. The request's thread
	 * goes back to the server meanwhile (Spring MVC answers a {@link DeferredResult} when it is set), so waiting
	 * requests do not take the threads lookups need; the server's own timeout for it comes a little after the wait's.
	 * An answer known at once (a wait refused because max-waiting requests wait already) is answered at once, without
	 * the second pass through the server that a deferred answer costs.
	 */
	static Object answered(CompletableFuture<?> answer, Duration patience, String key,
			ClaimPublisher.Receipt receipt) {
		if (answer.isDone() && !answer.isCompletedExceptionally()) {
			return response(answer.join(), key, receipt);
		}
		DeferredResult<ResponseEntity<?>> result = new DeferredResult<>(patience.plus(SERVER_GRACE).toMillis(),
				() -> accepted(key, receipt));
		answer.whenComplete((answered, failure) -> {
			if (failure instanceof CancellationException) {
				// cancelled below: the request has ended already
				return;
			}
			if (failure != null) {
				result.setErrorResult(failure);
			}
			else {
				result.setResult(response(answered, key, receipt));
			}
		});
		// the request ended (answered, or the client went away, or the server's timeout): whatever still waits for it
		// stops, and frees its place among the max-waiting at once
		result.onCompletion(() -> answer.cancel(false));
		return result;
	}

	/**
	 * 200 with the answer, or 202 as without waiting when there was none; 409 for a conditional release or claim that
	 * found its claim gone.
	 */
	private static ResponseEntity<?> response(@Nullable Object answered, String key, ClaimPublisher.Receipt receipt) {
		if (answered instanceof Release release && !release.released()) {
			return ProblemHandler.conditionNotMet("Key '" + key + "' no longer had the claim when the release arrived: "
					+ "nothing was released");
		}
		if (answered instanceof ClaimRulings.MoveNotMade) {
			return ProblemHandler.conditionNotMet("Key '" + key + "' no longer had the claim when this claim arrived: "
					+ "nothing was claimed");
		}
		return (answered != null) ? ResponseEntity.ok(answered) : accepted(key, receipt);
	}

	static ResponseEntity<ClaimPublisher.Receipt> accepted(String key, ClaimPublisher.Receipt receipt) {
		return ResponseEntity.accepted().location(UriPaths.location(Lookup.BINDINGS, key)).body(receipt);
	}

}
