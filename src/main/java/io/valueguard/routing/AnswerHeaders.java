package io.valueguard.routing;

import org.springframework.http.HttpHeaders;

/** Headers of answers, on the public endpoints and between instances alike: who served them, and how stale. */
public final class AnswerHeaders {

	/** On every answer: the instance ({@code host:port}) whose store was read. */
	public static final String SERVED_BY = "X-ValueGuard-Served-By";

	/** On answers read from a standby or restoring store: {@code true}. */
	public static final String STALE = "X-ValueGuard-Stale";

	/** With {@link #STALE}: how many records that store partition was behind its changelog. */
	public static final String OFFSET_LAG = "X-ValueGuard-Offset-Lag";

	private AnswerHeaders() {
	}

	/** The headers that describe an answer. */
	public static HttpHeaders of(Answer<?> answer) {
		HttpHeaders headers = new HttpHeaders();
		headers.set(SERVED_BY, answer.servedBy());
		if (answer.stale()) {
			headers.set(STALE, "true");
			headers.set(OFFSET_LAG, Long.toString(answer.staleLag()));
		}
		return headers;
	}

}
