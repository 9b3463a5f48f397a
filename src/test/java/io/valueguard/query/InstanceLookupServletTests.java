package io.valueguard.query;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.when;

/** What an instance answers to a lookup forwarded to it, as {@link RemoteInstances} reads it. */
class InstanceLookupServletTests {

	private final LookupRouter router = mock(LookupRouter.class);

	private final InstanceLookupServlet servlet = new InstanceLookupServlet(this.router);

	@Test
	void shouldAnswerTheEntryAsJsonNamingThisInstance() throws Exception {
		when(this.router.forwarded(StoreView.BINDINGS, "a b/c", null))
			.thenReturn(new Answer<>(new BindingView("a b/c", "seat-1", 42), "b-host:8080", null));

		MockHttpServletResponse response = get("bindings", "key", "a b/c");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getContentType()).isEqualTo("application/json");
		assertThat(response.getHeader(ForwardingHeaders.SERVED_BY)).isEqualTo("b-host:8080");
		assertThat(response.getHeader(ForwardingHeaders.STALE)).isNull();
		assertThat(response.getContentAsString()).isEqualTo("{\"key\":\"a b/c\",\"value\":\"seat-1\",\"timestamp\":42}");
	}

	@Test
	void shouldAnswerAnAbsentEntryWithA404NamingThisInstance() throws Exception {
		when(this.router.forwarded(StoreView.OWNERS, "seat-9", null)).thenReturn(new Answer<>(null, "b-host:8080", null));

		MockHttpServletResponse response = get("owners", "value", "seat-9");

		assertThat(response.getStatus()).isEqualTo(404);
		assertThat(response.getHeader(ForwardingHeaders.SERVED_BY)).isEqualTo("b-host:8080");
		assertThat(response.getContentAsByteArray()).isEmpty();
	}

	@Test
	void shouldSayHowStaleAStandbyReadIs() throws Exception {
		when(this.router.forwarded(StoreView.CLAIMS, "k", 100L))
			.thenReturn(new Answer<>(new ClaimView("k", "v", 7, true), "b-host:8080", 3L));

		MockHttpServletResponse response = get("claims", "key", "k", "maxLag", "100");

		assertThat(response.getStatus()).isEqualTo(200);
		assertThat(response.getHeader(ForwardingHeaders.STALE)).isEqualTo("true");
		assertThat(response.getHeader(ForwardingHeaders.OFFSET_LAG)).isEqualTo("3");
	}

	@Test
	void shouldRefuseRequestsWithoutAKeyOrWithABadMaxLag() throws Exception {
		assertProblem(get("bindings"), 400, "The key parameter is missing");
		assertProblem(get("bindings", "key", "k", "maxLag", "soon"), 400, "maxLag must be a number of records");
		assertProblem(get("bindings", "key", "k", "maxLag", "-1"), 400, "maxLag must be zero or more");
		verifyNoInteractions(this.router);
	}

	@Test
	void shouldNotNameItselfForALookupItDoesNotKnow() throws Exception {
		MockHttpServletResponse response = get("seats", "key", "k");

		assertProblem(response, 404, "No lookup of 'seats'; there are [bindings, claims, owners]");
		assertThat(response.getHeader(ForwardingHeaders.SERVED_BY)).as("not an answer about an entry").isNull();
	}

	@Test
	void shouldAnswer503WhenItCannotAnswerForThePartition() throws Exception {
		when(this.router.forwarded(eq(StoreView.BINDINGS), eq("k"), isNull()))
			.thenThrow(new StoreUnavailableException("bindings", "rebalancing", Duration.ofSeconds(5)));

		MockHttpServletResponse response = get("bindings", "key", "k");

		assertProblem(response, 503, "could not answer within 5000 ms (rebalancing)");
		assertThat(response.getHeader("Retry-After")).isEqualTo(ProblemHandler.RETRY_AFTER_SECONDS);
	}

	@Test
	void shouldKeepUnexpectedErrorsOutOfTheAnswer() throws Exception {
		when(this.router.forwarded(any(), any(), any())).thenThrow(new IllegalStateException("secret internals"));

		MockHttpServletResponse response = get("bindings", "key", "k");

		assertProblem(response, 500, "see the server log");
		assertThat(response.getContentAsString()).doesNotContain("secret internals");
	}

	private MockHttpServletResponse get(String view, String... parameters) throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", InstanceLookupServlet.PATH + view);
		request.setServletPath(InstanceLookupServlet.PATH.substring(0, InstanceLookupServlet.PATH.length() - 1));
		request.setPathInfo("/" + view);
		for (int i = 0; i < parameters.length; i += 2) {
			request.addParameter(parameters[i], parameters[i + 1]);
		}
		MockHttpServletResponse response = new MockHttpServletResponse();
		this.servlet.service(request, response);
		return response;
	}

	private static void assertProblem(MockHttpServletResponse response, int status, String detail) throws Exception {
		assertThat(response.getStatus()).isEqualTo(status);
		assertThat(response.getContentType()).isEqualTo("application/problem+json");
		assertThat(response.getContentAsString()).contains("\"status\":" + status).contains(detail);
	}

}
