package io.valueguard.api;

import java.util.Objects;

import io.valueguard.claims.ClaimPublisher;
import io.valueguard.routing.AnswerHeaders;
import io.valueguard.routing.ProblemTypes;
import io.valueguard.routing.StoreUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.TypeMismatchException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.converter.HttpMessageNotReadableException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.context.request.WebRequest;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.mvc.method.annotation.ResponseEntityExceptionHandler;

/**
 * Every error as an RFC 9457 problem body, with a stable {@code type} per kind of problem and never a stack trace.
 * Spring MVC's own errors (bad media type, missing route) come through the base class in the same shape.
 */
@RestControllerAdvice
class ProblemHandler extends ResponseEntityExceptionHandler {

	private static final Log logger = LogFactory.getLog(ProblemHandler.class);

	@ExceptionHandler(ClaimPublisher.InvalidClaimException.class)
	ResponseEntity<ProblemDetail> invalidClaim(ClaimPublisher.InvalidClaimException ex) {
		ProblemDetail problem = problem(HttpStatus.BAD_REQUEST, "invalid-claim", "Invalid claim", ex.getMessage());
		problem.setProperty("reason", ex.rejection().name());
		return ResponseEntity.of(problem).build();
	}

	@ExceptionHandler(ClaimPublisher.PublishFailedException.class)
	ResponseEntity<ProblemDetail> publishFailed(ClaimPublisher.PublishFailedException ex) {
		// ClaimPublisher logs when writes start and stop failing: nothing per request
		return unavailable(problem(HttpStatus.SERVICE_UNAVAILABLE, "kafka-unavailable", "Kafka unavailable",
				ex.getMessage()));
	}

	@ExceptionHandler(StoreUnavailableException.class)
	ResponseEntity<ProblemDetail> storeUnavailable(StoreUnavailableException ex) {
		return unavailable(problem(HttpStatus.SERVICE_UNAVAILABLE, "store-unavailable", "Store unavailable",
				ex.getMessage()));
	}

	@ExceptionHandler(NotFoundException.class)
	ResponseEntity<ProblemDetail> notFound(NotFoundException ex) {
		HttpHeaders headers = (ex.answer() != null) ? AnswerHeaders.of(ex.answer()) : new HttpHeaders();
		return ResponseEntity.status(HttpStatus.NOT_FOUND)
			.headers(headers)
			.body(problem(HttpStatus.NOT_FOUND, "not-found", "Not found", ex.getMessage()));
	}

	@ExceptionHandler(ConditionNotMetException.class)
	ResponseEntity<ProblemDetail> conditionNotMet(ConditionNotMetException ex) {
		return conditionNotMet(ex.getMessage());
	}

	/** 409: a conditional release whose condition did not hold; also for one found so after its wait. */
	static ResponseEntity<ProblemDetail> conditionNotMet(String detail) {
		return ResponseEntity.of(problem(HttpStatus.CONFLICT, "condition-not-met", "Condition not met", detail))
			.build();
	}

	@ExceptionHandler(InvalidRequestException.class)
	ResponseEntity<ProblemDetail> invalidRequest(InvalidRequestException ex) {
		return ResponseEntity.of(problem(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request", ex.getMessage()))
			.build();
	}

	@Override
	protected @Nullable ResponseEntity<Object> handleHttpMessageNotReadable(HttpMessageNotReadableException ex,
			HttpHeaders headers, HttpStatusCode status, WebRequest request) {
		if (ex.getCause() instanceof RequestSizeLimit.TooLarge tooLarge) {
			return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE)
				.header(HttpHeaders.CONNECTION, "close")
				.body(problem(HttpStatus.CONTENT_TOO_LARGE, "payload-too-large", "Payload too large",
						tooLarge.getMessage()));
		}
		// the parser's own message names Java types and positions: the client needs what the body must be
		return ResponseEntity.badRequest()
			.body(problem(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request",
					"The request body is not what this request takes (a JSON array of strings for a batch lookup); "
							+ "/v3/api-docs describes every request"));
	}

	/** A parameter that is not of its type ({@code ?limit=abc}, {@code ?erase=maybe}): what it must be. */
	@Override
	protected @Nullable ResponseEntity<Object> handleTypeMismatch(TypeMismatchException ex, HttpHeaders headers,
			HttpStatusCode status, WebRequest request) {
		String name = (ex instanceof MethodArgumentTypeMismatchException mismatch) ? mismatch.getName()
				: Objects.requireNonNullElse(ex.getPropertyName(), "a parameter");
		return ResponseEntity.badRequest()
			.body(problem(HttpStatus.BAD_REQUEST, "invalid-request", "Invalid request",
					name + " must be " + kind(ex.getRequiredType()) + ", not '" + ex.getValue() + "'"));
	}

	private static String kind(@Nullable Class<?> type) {
		if (type == Boolean.class || type == boolean.class) {
			return "true or false";
		}
		if (type == Integer.class || type == int.class || type == Long.class || type == long.class) {
			return "a whole number";
		}
		return "a " + ((type != null) ? type.getSimpleName() : "value of its type");
	}

	@ExceptionHandler(RuntimeException.class)
	ResponseEntity<ProblemDetail> unexpected(RuntimeException ex) {
		logger.error("Unexpected error", ex);
		return ResponseEntity.of(problem(HttpStatus.INTERNAL_SERVER_ERROR, "internal-error", "Internal error",
				"An unexpected error occurred; see the server log"))
			.build();
	}

	private static ResponseEntity<ProblemDetail> unavailable(ProblemDetail problem) {
		return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE)
			.header(HttpHeaders.RETRY_AFTER, ProblemTypes.RETRY_AFTER_SECONDS)
			.body(problem);
	}

	private static ProblemDetail problem(HttpStatus status, String type, String title, String detail) {
		ProblemDetail problem = ProblemDetail.forStatusAndDetail(status, detail);
		problem.setType(ProblemTypes.of(type));
		problem.setTitle(title);
		return problem;
	}

}
