package io.valueguard.api;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.valueguard.config.QueryProperties;
import io.valueguard.routing.Answer;
import io.valueguard.routing.AnswerHeaders;
import io.valueguard.routing.Listings;
import io.valueguard.routing.Lookup;
import io.valueguard.routing.Page;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;
import org.springframework.http.ResponseEntity;

/** Turns answers into HTTP responses, with the headers that say who served them and how stale they may be. */
final class Responses {

	private Responses() {
	}

	static <T> ResponseEntity<T> answer(Answer<T> answer, String what, String by, String id) {
		if (answer.entry() == null) {
			throw new NotFoundException(what, by, id, answer);
		}
		return ResponseEntity.ok().headers(AnswerHeaders.of(answer)).body(answer.entry());
	}

	/** A listing: the merged page of every instance's share. */
	static <T> ResponseEntity<Page<T>> listing(Listings listings, Lookup<?, T> view, @Nullable String after,
			int limit) {
		Listings.Listing<T> listing = listings.listing(view, after, limit);
		return servedBy(listing.servedBy()).body(listing.page());
	}

	/** A 200 that names the instances whose stores the body was read from. */
	static ResponseEntity.BodyBuilder servedBy(List<String> instances) {
		return ResponseEntity.ok().header(AnswerHeaders.SERVED_BY, String.join(", ", instances));
	}

	static @Nullable Long maxLag(@Nullable Long maxLag) {
		if (maxLag != null && maxLag < 0) {
			throw new InvalidRequestException("maxLag must be zero or more records, not " + maxLag);
		}
		return maxLag;
	}

	static int limit(int limit, QueryProperties properties) {
		if (limit < 1 || limit > properties.maxPageSize()) {
			throw new InvalidRequestException(
					"limit must be between 1 and " + properties.maxPageSize() + ", not " + limit);
		}
		return limit;
	}

	/** A {@code ?wait=} duration ({@code 5s}, {@code 500ms}, ISO-8601), at most {@code valueguard.query.max-wait}. */
	static @Nullable Duration wait(@Nullable String wait, QueryProperties properties) {
		if (wait == null) {
			return null;
		}
		Duration duration;
		try {
			duration = DurationStyle.detectAndParse(wait);
		}
		catch (IllegalArgumentException ex) {
			throw new InvalidRequestException("wait must be a duration such as 5s or 500ms, not '" + wait + "'");
		}
		if (duration.isNegative() || duration.isZero() || duration.compareTo(properties.maxWait()) > 0) {
			throw new InvalidRequestException(
					"wait must be more than 0 and at most " + properties.maxWait().toMillis() + "ms, not " + wait);
		}
		return duration;
	}

	/** The keys of a batch lookup: at least one, at most {@code valueguard.query.max-batch-size}. */
	static List<String> batch(@Nullable List<String> keys, QueryProperties properties) {
		if (keys == null || keys.isEmpty() || keys.size() > properties.maxBatchSize()) {
			throw new InvalidRequestException("a batch lookup takes a JSON array of 1 to " + properties.maxBatchSize()
					+ " strings, not " + ((keys != null) ? keys.size() : 0));
		}
		if (keys.stream().anyMatch(Objects::isNull)) {
			throw new InvalidRequestException("a batch lookup takes strings, not null");
		}
		return keys;
	}

}
