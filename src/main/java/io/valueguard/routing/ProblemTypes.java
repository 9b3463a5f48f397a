package io.valueguard.routing;

import java.io.IOException;
import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletResponse;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.MediaType;

/**
 * The {@code type} URIs of the RFC 9457 problem bodies ValueGuard writes, on the public endpoints and between
 * instances alike, and how long a client should wait before asking again after a 503.
 */
public final class ProblemTypes {

	/** {@code Retry-After} of every 503: a rebalance or a restore usually ends within a few seconds. */
	public static final String RETRY_AFTER_SECONDS = "2";

	// Problem bodies written outside Spring MVC (filters, the instance protocol) carry four one-word fields, strings and
	// an int, which no spring.jackson.* naming, inclusion or date setting changes; a mapper of its own lets filters
	// that run before the context's beans write them.
	private static final JsonMapper JSON = JsonMapper.builder().build();

	private ProblemTypes() {
	}

	/** The {@code type} of a problem body, by kind ({@code not-found}, {@code store-unavailable}, ...). */
	public static URI of(String kind) {
		return URI.create("https://valueguard.io/problems/" + kind);
	}

	/**
	 * Writes a problem body straight to a servlet response, for the places that answer before or beside Spring MVC
	 * (the instance protocol, authentication, the request size limit).
	 */
	public static void write(HttpServletResponse response, int status, String kind, String title, String detail)
			throws IOException {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", of(kind).toString());
		problem.put("title", title);
		problem.put("status", status);
		problem.put("detail", detail);
		byte[] body = JSON.writeValueAsBytes(problem);
		response.setStatus(status);
		response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

}
