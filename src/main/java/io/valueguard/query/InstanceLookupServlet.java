package io.valueguard.query;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * The lookup one instance forwards to another: {@code GET /internal/lookup/{bindings|claims|owners}?key=&maxLag=},
 * answered from this instance's stores only, never forwarded again. A plain servlet beside Spring MVC: a forward is
 * the same lookup twice, and on the instance that answers it, MVC's dispatch, argument resolution and content
 * negotiation cost more than the lookup itself (docs/benchmarks.md). The public endpoints stay on MVC.
 * <p>
 * Answers: 200 with the entry as JSON; 404 with no body when the entry is absent; both name the instance in
 * {@link ForwardingHeaders#SERVED_BY}, and a stale read says so as the public endpoints do. 400 for a request without
 * a key or with a bad {@code maxLag}, 503 when this instance cannot answer for the key's partition within the retry
 * budget (the asking instance then asks again with fresh metadata); errors are problem bodies.
 */
final class InstanceLookupServlet extends HttpServlet {

	/** Where the servlet is mapped; the view's name follows. */
	static final String PATH = "/internal/lookup/";

	private static final Log logger = LogFactory.getLog(InstanceLookupServlet.class);

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Map<String, StoreView<?, ?>> VIEWS = Map.of(StoreView.BINDINGS.name(), StoreView.BINDINGS,
			StoreView.CLAIMS.name(), StoreView.CLAIMS, StoreView.OWNERS.name(), StoreView.OWNERS);

	private final transient LookupRouter router;

	InstanceLookupServlet(LookupRouter router) {
		this.router = router;
	}

	/** The names of the views this servlet answers for, after {@link #PATH}. */
	static List<String> views() {
		return VIEWS.keySet().stream().sorted().toList();
	}

	@Override
	protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
		String name = (request.getPathInfo() != null) ? request.getPathInfo().substring(1) : "";
		StoreView<?, ?> view = VIEWS.get(name);
		if (view == null) {
			problem(response, 404, "not-found", "Not found", "No lookup of '" + name + "'; there are " + views());
			return;
		}
		String key = request.getParameter(view.parameter());
		if (key == null) {
			problem(response, 400, "invalid-request", "Invalid request", "The " + view.parameter() + " parameter is missing");
			return;
		}
		try {
			answer(response, this.router.forwarded(view, key, maxLag(request.getParameter("maxLag"))));
		}
		catch (InvalidRequestException ex) {
			problem(response, 400, "invalid-request", "Invalid request", ex.getMessage());
		}
		catch (StoreUnavailableException | InvalidStateStoreException ex) {
			response.setHeader(HttpHeaders.RETRY_AFTER, ProblemHandler.RETRY_AFTER_SECONDS);
			problem(response, 503, "store-unavailable", "Store unavailable", ex.getMessage());
		}
		catch (RuntimeException ex) {
			logger.error("Unexpected error answering a forwarded lookup", ex);
			problem(response, 500, "internal-error", "Internal error",
					"An unexpected error occurred; see the server log");
		}
	}

	private static @Nullable Long maxLag(@Nullable String maxLag) {
		if (maxLag == null) {
			return null;
		}
		try {
			return Responses.maxLag(Long.valueOf(maxLag));
		}
		catch (NumberFormatException ex) {
			throw new InvalidRequestException("maxLag must be a number of records, not '" + maxLag + "'");
		}
	}

	private static void answer(HttpServletResponse response, Answer<?> answer) throws IOException {
		ForwardingHeaders.of(answer).forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		if (answer.entry() == null) {
			response.setStatus(404);
			response.setContentLength(0);
			return;
		}
		byte[] body = JSON.writeValueAsBytes(answer.entry());
		response.setStatus(200);
		response.setContentType(MediaType.APPLICATION_JSON_VALUE);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

	private static void problem(HttpServletResponse response, int status, String type, String title, String detail)
			throws IOException {
		Map<String, Object> problem = new LinkedHashMap<>();
		problem.put("type", ProblemHandler.type(type).toString());
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
