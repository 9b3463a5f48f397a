package io.valueguard.routing;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.valueguard.config.QueryProperties;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;

/**
 * The instance-to-instance protocol, server side: what one instance asks another, all under {@link #PATH}, answered
 * from this instance's stores only and never forwarded again. {@link RemoteInstances} is the client side.
 * <ul>
 * <li>{@code GET /internal/lookup/{bindings|claims|owners}?key=&maxLag=}: one entry; 200 with it as JSON, 404 with no
 * body when it is absent;</li>
 * <li>{@code POST /internal/lookup/{bindings|claims|owners}}, a JSON array of keys: a JSON object of each key whose
 * partition this instance is active for to its entry (null when absent); the other keys are left out;</li>
 * <li>{@code GET /internal/page/{bindings|owners}?after=&limit=}: this instance's share of a listing;</li>
 * <li>{@code GET /internal/instance}: this instance's report for {@code /api/instances}.</li>
 * </ul>
 * Every answer names the instance in {@link AnswerHeaders#SERVED_BY}; a stale read says so as the public endpoints
 * do. 400 for a malformed request, 503 at once when this instance cannot answer for the partition now (the asking
 * instance then asks again with fresh metadata, within its own retry budget); errors are problem bodies. A plain servlet beside Spring
 * MVC, because a forward is the same lookup twice and MVC's dispatch would cost the answering instance more than the
 * lookup itself.
 */
final class InstanceProtocolServlet extends HttpServlet {

	/** Where the servlet is mapped. */
	static final String PATH = "/internal";

	/** Single and batch lookups, the lookup's name follows. */
	static final String LOOKUP = "/lookup/";

	/** Shares of a listing, the lookup's name follows. */
	static final String PAGE = "/page/";

	/** This instance's report. */
	static final String INSTANCE = "/instance";

	private static final Log logger = LogFactory.getLog(InstanceProtocolServlet.class);

	// The instance protocol is a wire format between instances, not a presentation: it must not change with
	// spring.jackson.* (an instance configured for indented or snake_case API answers still talks to the others in
	// the one format RemoteInstances reads), so it has a mapper of its own, not Boot's. MultiInstanceIntegrationTests
	// runs one of its instances with snake_case naming to keep it so.
	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Map<String, Lookup<?, ?>> LOOKUPS = Map.of(Lookup.BINDINGS.name(), Lookup.BINDINGS,
			Lookup.CLAIMS.name(), Lookup.CLAIMS, Lookup.OWNERS.name(), Lookup.OWNERS);

	private static final Map<String, Lookup<?, ?>> LISTINGS = Map.of(Lookup.BINDINGS.name(), Lookup.BINDINGS,
			Lookup.OWNERS.name(), Lookup.OWNERS);

	private final transient LookupRouter router;

	private final transient Listings listings;

	private final transient InstanceReports reports;

	private final transient QueryProperties properties;

	private final transient @Nullable RequestSignature signature;

	private final int maxBodyBytes;

	/**
	 * @param maxBodyBytes the largest body accepted ({@code valueguard.limits.max-request-bytes})
	 * @param signature what a request must carry, or null when instances trust each other's network
	 */
	InstanceProtocolServlet(LookupRouter router, Listings listings, InstanceReports reports,
			QueryProperties properties, int maxBodyBytes, @Nullable RequestSignature signature) {
		this.router = router;
		this.maxBodyBytes = maxBodyBytes;
		this.signature = signature;
		this.listings = listings;
		this.reports = reports;
		this.properties = properties;
	}

	/** A request this protocol cannot answer as asked: a 400, or a 404 for a path it does not know. */
	private static final class BadRequest extends RuntimeException {

		private final int status;

		BadRequest(int status, String message) {
			super(message);
			this.status = status;
		}

	}

	@Override
	protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
		String path = Objects.requireNonNullElse(request.getPathInfo(), "");
		String method = request.getMethod();
		try {
			byte[] body = method.equals("POST") ? request.getInputStream().readNBytes(this.maxBodyBytes + 1) : null;
			String refusal = (this.signature != null) ? this.signature.refusal(request.getHeader(RequestSignature.HEADER),
					method, request.getRequestURI(), request.getQueryString(), body) : null;
			if (refusal != null) {
				response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "ValueGuard-Signature");
				problem(response, 401, "unauthorized", "Unauthorized", refusal);
				return;
			}
			if (path.startsWith(LOOKUP) && method.equals("GET")) {
				lookup(request, response, named(LOOKUPS, path.substring(LOOKUP.length())));
			}
			else if (path.startsWith(LOOKUP) && method.equals("POST")) {
				json(response, this.router.localShare(named(LOOKUPS, path.substring(LOOKUP.length())), keys(body)));
			}
			else if (path.startsWith(PAGE) && method.equals("GET")) {
				json(response, this.listings.local(named(LISTINGS, path.substring(PAGE.length())),
						request.getParameter("after"), limit(request.getParameter("limit"))));
			}
			else if (path.equals(INSTANCE) && method.equals("GET")) {
				json(response, this.reports.local());
			}
			else {
				throw new BadRequest(404, "No instance call " + method + " " + PATH + path);
			}
		}
		catch (BadRequest ex) {
			problem(response, ex.status, (ex.status == 404) ? "not-found" : "invalid-request",
					(ex.status == 404) ? "Not found" : "Invalid request", ex.getMessage());
		}
		catch (StoreUnavailableException | InvalidStateStoreException ex) {
			response.setHeader(HttpHeaders.RETRY_AFTER, ProblemTypes.RETRY_AFTER_SECONDS);
			problem(response, 503, "store-unavailable", "Store unavailable", ex.getMessage());
		}
		catch (RuntimeException ex) {
			logger.error("Unexpected error answering another instance", ex);
			problem(response, 500, "internal-error", "Internal error",
					"An unexpected error occurred; see the server log");
		}
	}

	/** The names of the lookups this servlet answers for, after {@link #LOOKUP}. */
	static List<String> lookups() {
		return LOOKUPS.keySet().stream().sorted().toList();
	}

	private static Lookup<?, ?> named(Map<String, Lookup<?, ?>> lookups, String name) {
		Lookup<?, ?> lookup = lookups.get(name);
		if (lookup == null) {
			throw new BadRequest(404, "No lookup of '" + name + "'; there are "
					+ lookups.keySet().stream().sorted().toList());
		}
		return lookup;
	}

	private void lookup(HttpServletRequest request, HttpServletResponse response, Lookup<?, ?> lookup)
			throws IOException {
		String key = request.getParameter(lookup.parameter());
		if (key == null) {
			throw new BadRequest(400, "The " + lookup.parameter() + " parameter is missing");
		}
		Answer<?> answer = this.router.forwarded(lookup, key, maxLag(request.getParameter("maxLag")));
		AnswerHeaders.of(answer).forEach((name, values) -> values.forEach((value) -> response.addHeader(name, value)));
		if (answer.entry() == null) {
			response.setStatus(404);
			response.setContentLength(0);
			return;
		}
		write(response, 200, MediaType.APPLICATION_JSON_VALUE, JSON.writeValueAsBytes(answer.entry()));
	}

	private static @Nullable Long maxLag(@Nullable String maxLag) {
		if (maxLag == null) {
			return null;
		}
		try {
			long records = Long.parseLong(maxLag);
			if (records >= 0) {
				return records;
			}
		}
		catch (NumberFormatException ex) {
			// said below
		}
		throw new BadRequest(400, "maxLag must be zero or more records, not '" + maxLag + "'");
	}

	private int limit(@Nullable String limit) {
		try {
			int entries = Integer.parseInt(Objects.requireNonNullElse(limit, ""));
			if (entries >= 1 && entries <= this.properties.maxPageSize()) {
				return entries;
			}
		}
		catch (NumberFormatException ex) {
			// said below
		}
		throw new BadRequest(400, "limit must be between 1 and " + this.properties.maxPageSize() + ", not '"
				+ limit + "'");
	}

	private List<String> keys(byte[] body) {
		if (body.length > this.maxBodyBytes) {
			throw new BadRequest(400, "a batch lookup takes at most " + this.maxBodyBytes + " bytes");
		}
		String[] keys;
		try {
			keys = JSON.readValue(body, String[].class);
		}
		catch (JacksonException ex) {
			throw new BadRequest(400, "a batch lookup takes a JSON array of strings");
		}
		if (keys == null || keys.length == 0 || keys.length > this.properties.maxBatchSize()
				|| Arrays.stream(keys).anyMatch(Objects::isNull)) {
			throw new BadRequest(400, "a batch lookup takes a JSON array of 1 to " + this.properties.maxBatchSize()
					+ " strings");
		}
		return Arrays.asList(keys);
	}

	private void json(HttpServletResponse response, Object body) throws IOException {
		response.setHeader(AnswerHeaders.SERVED_BY, this.reports.self());
		write(response, 200, MediaType.APPLICATION_JSON_VALUE, JSON.writeValueAsBytes(body));
	}

	private static void problem(HttpServletResponse response, int status, String type, String title, String detail)
			throws IOException {
		ProblemTypes.write(response, status, type, title, detail);
	}

	private static void write(HttpServletResponse response, int status, String type, byte[] body)
			throws IOException {
		response.setStatus(status);
		response.setContentType(type);
		response.setContentLength(body.length);
		response.getOutputStream().write(body);
	}

}
