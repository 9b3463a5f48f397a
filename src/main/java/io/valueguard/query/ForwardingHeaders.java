package io.valueguard.query;

/** Headers of the instance-to-instance protocol and of answers. */
public final class ForwardingHeaders {

	/** On a request forwarded by another instance (its address): answer from local stores, never forward again. */
	public static final String FORWARDED = "X-ValueGuard-Forwarded";

	/** On every answer: the instance ({@code host:port}) whose store was read. */
	public static final String SERVED_BY = "X-ValueGuard-Served-By";

	/** On answers read from a standby or restoring store: {@code true}. */
	public static final String STALE = "X-ValueGuard-Stale";

	/** With {@link #STALE}: how many records that store partition was behind its changelog. */
	public static final String OFFSET_LAG = "X-ValueGuard-Offset-Lag";

	private ForwardingHeaders() {
	}

	/** The headers that describe an answer: who served it, and how stale it may be. */
	public static org.springframework.http.HttpHeaders of(Answer<?> answer) {
		org.springframework.http.HttpHeaders headers = new org.springframework.http.HttpHeaders();
		headers.set(SERVED_BY, answer.servedBy());
		if (answer.stale()) {
			headers.set(STALE, "true");
			headers.set(OFFSET_LAG, Long.toString(answer.staleLag()));
		}
		return headers;
	}

}
