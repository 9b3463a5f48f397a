package io.valueguard.routing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.support.SecuritySettings;
import io.valueguard.support.TestProperties;
import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/** What an instance answers to another, as {@link RemoteInstances} reads it. */
class InstanceProtocolServletTests {

	private final LookupRouter router = mock(LookupRouter.class);

	private final Listings listings = mock(Listings.class);

	private final InstanceReports reports = mock(InstanceReports.class);

	private final InstanceProtocolServlet servlet = new InstanceProtocolServlet(this.router, this.listings,
			this.reports, TestProperties.query(Map.of("max-page-size", "100", "max-batch-size", "3")),
			1_000, null);

	@Test
	void shouldAnswerTheEntryAsJsonNamingThisInstance() throws Exception {
		when(this.router.forwarded(Lookup.BINDINGS, "a b/c", null))
			.thenReturn(new Answer<>(new BindingView("a b/c", "seat-1", 42), "b-host:8080", null));

		MockHttpServletResponse response = get("bindings", "key", "a b/c");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getContentType()).isEqualTo("application/json");
		assertThat(response.getHeader(AnswerHeaders.SERVED_BY)).isEqualTo("b-host:8080");
		assertThat(response.getHeader(AnswerHeaders.STALE)).isNull();
		assertThat(response.getContentAsString()).isEqualTo("{\"key\":\"a b/c\",\"value\":\"seat-1\",\"timestamp\":42}");
	}

	@Test
	void shouldAnswerAnAbsentEntryWithA404NamingThisInstance() throws Exception {
		when(this.router.forwarded(Lookup.OWNERS, "seat-9", null)).thenReturn(new Answer<>(null, "b-host:8080", null));

		MockHttpServletResponse response = get("owners", "value", "seat-9");

		assertThat(response.getStatus()).isEqualTo(404);
		assertThat(response.getHeader(AnswerHeaders.SERVED_BY)).isEqualTo("b-host:8080");
		assertThat(response.getContentAsByteArray()).isEmpty();
	}

	@Test
	void shouldSayHowStaleAStandbyReadIs() throws Exception {
		when(this.router.forwarded(Lookup.CLAIMS, "k", 100L))
			.thenReturn(new Answer<>(new ClaimView("k", "v", 7, true, false, false), "b-host:8080", 3L));

		MockHttpServletResponse response = get("claims", "key", "k", "maxLag", "100");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getHeader(AnswerHeaders.STALE)).isEqualTo("true");
		assertThat(response.getHeader(AnswerHeaders.OFFSET_LAG)).isEqualTo("3");
	}

	@Test
	void shouldRefuseRequestsWithoutAKeyOrWithABadMaxLag() throws Exception {
		assertProblem(get("bindings"), 400, "The key parameter is missing");
		assertProblem(get("bindings", "key", "k", "maxLag", "soon"), 400, "maxLag must be zero or more records, not 'soon'");
		assertProblem(get("bindings", "key", "k", "maxLag", "-1"), 400, "maxLag must be zero or more");
		verifyNoInteractions(this.router);
	}

	@Test
	void shouldNotNameItselfForALookupItDoesNotKnow() throws Exception {
		MockHttpServletResponse response = get("seats", "key", "k");

		assertProblem(response, 404, "No lookup of 'seats'; there are [bindings, claims, owners]");
		assertThat(response.getHeader(AnswerHeaders.SERVED_BY)).as("not an answer about an entry").isNull();
	}

	@Test
	void shouldAnswer503WhenItCannotAnswerForThePartition() throws Exception {
		when(this.router.forwarded(eq(Lookup.BINDINGS), eq("k"), isNull()))
			.thenThrow(new StoreUnavailableException("bindings", "rebalancing", Duration.ofSeconds(5)));

		MockHttpServletResponse response = get("bindings", "key", "k");

		assertProblem(response, 503, "could not answer within 5000 ms (rebalancing)");
		assertThat(response.getHeader("Retry-After")).isEqualTo(ProblemTypes.RETRY_AFTER_SECONDS);
	}

	@Test
	void shouldKeepUnexpectedErrorsOutOfTheAnswer() throws Exception {
		when(this.router.forwarded(any(), any(), any())).thenThrow(new IllegalStateException("secret internals"));

		MockHttpServletResponse response = get("bindings", "key", "k");

		assertProblem(response, 500, "see the server log");
		assertThat(response.getContentAsString()).doesNotContain("secret internals");
	}

	@Test
	void shouldAnswerItsShareOfABatchAsAJsonObject() throws Exception {
		Map<String, BindingView> share = new LinkedHashMap<>();
		share.put("alice", new BindingView("alice", "phone", 1));
		share.put("bob", null);
		when(this.router.localShare(Lookup.BINDINGS, List.of("alice", "bob"))).thenReturn(share);
		when(this.reports.self()).thenReturn("b-host:8080");

		MockHttpServletResponse response = post("/lookup/bindings", "[\"alice\",\"bob\"]");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getHeader(AnswerHeaders.SERVED_BY)).isEqualTo("b-host:8080");
		assertThat(response.getContentAsString())
			.isEqualTo("{\"alice\":{\"key\":\"alice\",\"value\":\"phone\",\"timestamp\":1},\"bob\":null}");
	}

	@Test
	void shouldRefuseABatchThatIsNotAnArrayOfStringsOrTooLong() throws Exception {
		assertProblem(post("/lookup/bindings", "{\"alice\":1}"), 400, "a JSON array of strings");
		assertProblem(post("/lookup/bindings", "[\"a\",null]"), 400, "a JSON array of 1 to 3 strings");
		assertProblem(post("/lookup/bindings", "[\"a\",\"b\",\"c\",\"d\"]"), 400, "1 to 3 strings");
		verifyNoInteractions(this.router);
	}

	@Test
	void shouldAnswerItsShareOfAListing() throws Exception {
		when(this.listings.local(Lookup.OWNERS, "seat-1", 2)).thenReturn(new LocalPage<>("b-host:8080",
				List.of(new OwnerView("seat-2", "alice", 5)), List.of(0, 3), true));
		when(this.reports.self()).thenReturn("b-host:8080");

		MockHttpServletResponse response = call("GET", "/page/owners", null, "after", "seat-1", "limit", "2");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getContentAsString()).isEqualTo("{\"servedBy\":\"b-host:8080\",\"items\":[{\"value\":"
				+ "\"seat-2\",\"key\":\"alice\",\"timestamp\":5}],\"partitions\":[0,3],\"more\":true}");
	}

	@Test
	void shouldRefuseAListingOfClaimsOrWithALimitOutOfRange() throws Exception {
		assertProblem(call("GET", "/page/claims", null, "limit", "2"), 404, "No lookup of 'claims'");
		assertProblem(call("GET", "/page/owners", null, "limit", "101"), 400, "limit must be between 1 and 100");
		assertProblem(call("GET", "/page/owners", null), 400, "limit must be between 1 and 100");
		verifyNoInteractions(this.listings);
	}

	@Test
	void shouldAnswerItsOwnReport() throws Exception {
		when(this.reports.local()).thenReturn(new InstanceReport("b-host:8080", true, null, List.of(), List.of()));
		when(this.reports.self()).thenReturn("b-host:8080");

		MockHttpServletResponse response = call("GET", "/instance", null);

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getContentAsString()).contains("\"host\":\"b-host:8080\"");
	}

	@Test
	void shouldAnswer404ForACallItDoesNotKnow() throws Exception {
		assertProblem(call("DELETE", "/lookup/bindings", null, "key", "k"), 404, "No instance call DELETE /internal/lookup");
		assertProblem(call("GET", "/evict", null), 404, "No instance call GET /internal/evict");
	}

	@Test
	void shouldRefuseRequestsWithoutAValidRecentSignatureWhenASecretIsSet() throws Exception {
		MutableClock clock = new MutableClock(1_000_000);
		RequestSignature signature = new RequestSignature(SecuritySettings.SECRET, 30_000, clock);
		InstanceProtocolServlet signed = new InstanceProtocolServlet(this.router, this.listings, this.reports,
				TestProperties.query(Map.of("max-page-size", "100", "max-batch-size", "3")), 1_000, signature);
		when(this.router.forwarded(Lookup.BINDINGS, "k", null)).thenReturn(new Answer<>(null, "b-host:8080", null));
		String valid = signature.sign("GET", "/internal/lookup/bindings", "key=k", null);

		assertProblem(call(signed, "GET", "/lookup/bindings", null, null, "key", "k"), 401, "needs the "
				+ RequestSignature.HEADER);
		assertThat(call(signed, "GET", "/lookup/bindings", null, valid, "key", "k").getStatus()).isEqualTo(404);
		assertProblem(call(signed, "GET", "/lookup/bindings", null, valid, "key", "other"), 401,
				"does not match the request");
		assertProblem(call(signed, "GET", "/lookup/bindings", null, "t=1,s=forged", "key", "k"), 401,
				"away from this instance's clock");
		clock.advance(30_001);
		assertProblem(call(signed, "GET", "/lookup/bindings", null, valid, "key", "k"), 401,
				"more than 30000 ms away from this instance's clock");
		verify(this.router, times(1)).forwarded(Lookup.BINDINGS, "k", null);
	}

	@Test
	void shouldSignTheBodyOfABatch() throws Exception {
		MutableClock clock = new MutableClock(1_000_000);
		RequestSignature signature = new RequestSignature(SecuritySettings.SECRET, 30_000, clock);
		String signedForOneBody = signature.sign("POST", "/internal/lookup/bindings", null,
				"[\"alice\"]".getBytes(StandardCharsets.UTF_8));

		assertThat(signature.refusal(signedForOneBody, "POST", "/internal/lookup/bindings", null,
				"[\"mallory\"]".getBytes(StandardCharsets.UTF_8)))
			.isEqualTo("The signature does not match the request");
	}

	/** A clock the test moves. */
	private static final class MutableClock extends java.time.Clock {

		private long millis;

		MutableClock(long millis) {
			this.millis = millis;
		}

		void advance(long by) {
			this.millis += by;
		}

		@Override
		public long millis() {
			return this.millis;
		}

		@Override
		public java.time.Instant instant() {
			return java.time.Instant.ofEpochMilli(this.millis);
		}

		@Override
		public java.time.ZoneId getZone() {
			return java.time.ZoneOffset.UTC;
		}

		@Override
		public java.time.Clock withZone(java.time.ZoneId zone) {
			return this;
		}

	}

	private MockHttpServletResponse get(String lookup, String... parameters) throws Exception {
		return call("GET", InstanceProtocolServlet.LOOKUP + lookup, null, parameters);
	}

	private MockHttpServletResponse post(String path, String body) throws Exception {
		return call("POST", path, body);
	}

	private MockHttpServletResponse call(String method, String path, String body, String... parameters)
			throws Exception {
		return call(this.servlet, method, path, body, null, parameters);
	}

	private static MockHttpServletResponse call(InstanceProtocolServlet servlet, String method, String path,
			String body, String signature, String... parameters) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest(method, InstanceProtocolServlet.PATH + path);
		request.setServletPath(InstanceProtocolServlet.PATH);
		request.setPathInfo(path);
		for (int i = 0; i < parameters.length; i += 2) {
			request.addParameter(parameters[i], parameters[i + 1]);
		}
		if (signature != null) {
			request.addHeader(RequestSignature.HEADER, signature);
		}
		if (body != null) {
			request.setContentType("application/json");
			request.setContent(body.getBytes(StandardCharsets.UTF_8));
		}
		request.setQueryString(queryOf(parameters));
		MockHttpServletResponse response = new MockHttpServletResponse();
		servlet.service(request, response);
		return response;
	}

	private static String queryOf(String... parameters) {
		StringBuilder query = new StringBuilder();
		for (int i = 0; i < parameters.length; i += 2) {
			query.append((i == 0) ? "" : "&").append(parameters[i]).append('=').append(parameters[i + 1]);
		}
		return (query.length() > 0) ? query.toString() : null;
	}

	private static void assertProblem(MockHttpServletResponse response, int status, String detail) throws Exception {
		assertThat(response.getStatus()).isEqualTo(status);
		assertThat(response.getContentType()).isEqualTo("application/problem+json");
		assertThat(response.getContentAsString()).contains("\"status\":" + status).contains(detail);
	}

}
