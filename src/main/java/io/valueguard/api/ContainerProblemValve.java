package io.valueguard.api;

import java.io.IOException;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;

import io.valueguard.routing.ProblemTypes;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;

/**
 * Errors that the servlet container answers itself, before Spring MVC sees the request (an encoded {@code /} or NUL
 * in the path, headers too large, a malformed request line), as RFC 9457 problem bodies instead of Tomcat's HTML
 * page. Errors from the application never reach it: {@link ProblemHandler} has already written their body.
 */
class ContainerProblemValve extends ErrorReportValve {

	// Tomcat builds this valve itself, by class name (ContainerErrors), so no bean can be handed to it; the body's
	// one-word fields are the same under any spring.jackson.* naming or inclusion setting.
	private static final JsonMapper JSON = JsonMapper.builder().build();

	@Override
	protected void report(Request request, Response response, Throwable throwable) {
		int status = response.getStatus();
		if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
			return;
		}
		HttpStatus known = HttpStatus.resolve(status);
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", (status == 400) ? ProblemTypes.of("invalid-request").toString() : "about:blank");
		problem.put("title", (known != null) ? known.getReasonPhrase() : "Error");
		problem.put("status", status);
		problem.put("detail", detail(status));
		try {
			response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
			response.setCharacterEncoding("utf-8");
			PrintWriter writer = response.getReporter();
			if (writer != null) {
				writer.write(JSON.writeValueAsString(problem));
				response.finishResponse();
			}
		}
		catch (IOException | IllegalStateException ex) {
			// the connection is gone or the response committed meanwhile: nothing more can be said
		}
	}

	private static String detail(int status) {
		if (status == 400) {
			return "The server could not read the request: a path with an encoded '/', '\\' or NUL, headers that are "
					+ "too large, or a malformed request line. Keys and values with '/' go in the query form: "
					+ "/api/bindings?key=..., /api/owners?value=...";
		}
		return "The server could not serve the request";
	}

}
