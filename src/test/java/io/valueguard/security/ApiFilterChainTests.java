package io.valueguard.security;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.atomic.AtomicReference;

import io.valueguard.config.SecurityProperties;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Requests through the API's filter chains, without a server or the service behind them: which requests reach their
 * handler with which credentials, and that every answer, passed or refused, carries the security headers.
 */
class ApiFilterChainTests {

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(SecurityProperties.class)
	@Import(ApiSecurityConfiguration.class)
	static class Settings {

	}

	private static final String HASH = new BCryptPasswordEncoder(4).encode("secret");

	private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(SecurityAutoConfiguration.class,
				ServletWebSecurityAutoConfiguration.class))
		.withUserConfiguration(Settings.class)
		.withPropertyValues("valueguard.security.users[0].name=reader",
				"valueguard.security.users[0].password=" + HASH, "valueguard.security.users[0].roles=read",
				"valueguard.security.users[1].name=writer", "valueguard.security.users[1].password=" + HASH,
				"valueguard.security.users[1].roles=read,write", "valueguard.security.users[2].name=ops",
				"valueguard.security.users[2].password=" + HASH, "valueguard.security.users[2].roles=admin",
				"valueguard.security.internal-secret=0123456789abcdef0123456789abcdef");

	@Test
	void shouldLetAReaderLookUpWithTheSecurityHeadersOnTheAnswer() {
		this.runner.run((context) -> {
			Answer answer = send(context.getBean("springSecurityFilterChain", Filter.class), "GET",
					"/api/bindings/alice", "reader");
			assertThat(answer.handled()).isTrue();
			assertThat(answer.response().getStatus()).isEqualTo(200);
			assertSecurityHeaders(answer.response());
		});
	}

	@Test
	void shouldRefuseAReaderClaimingWithAProblemNamingTheWriteAuthority() {
		this.runner.run((context) -> {
			Filter chain = context.getBean("springSecurityFilterChain", Filter.class);
			Answer reader = send(chain, "PUT", "/api/bindings/alice", "reader");
			assertThat(reader.handled()).isFalse();
			assertThat(reader.response().getStatus()).isEqualTo(403);
			assertThat(reader.response().getContentType()).isEqualTo("application/problem+json");
			assertThat(reader.response().getContentAsString()).contains("SCOPE_valueguard.write");
			assertSecurityHeaders(reader.response());
			assertThat(send(chain, "DELETE", "/api/bindings?key=alice", "reader").response().getStatus()).isEqualTo(403);
			assertThat(send(chain, "PUT", "/api/bindings/alice", "writer").handled()).isTrue();
			assertThat(send(chain, "DELETE", "/api/bindings", "writer").handled()).isTrue();
		});
	}

	/** Freeing a value releases whichever key holds it, so a writer of its own keys may not; an administrator may. */
	@Test
	void shouldLeaveFreeingAValueToAdministrators() {
		this.runner.run((context) -> {
			Filter chain = context.getBean("springSecurityFilterChain", Filter.class);
			Answer writer = send(chain, "DELETE", "/api/owners/%2B1-555-0100", "writer");
			assertThat(writer.handled()).isFalse();
			assertThat(writer.response().getStatus()).isEqualTo(403);
			assertThat(writer.response().getContentAsString()).contains("SCOPE_valueguard.admin");
			assertThat(send(chain, "DELETE", "/api/owners?value=a/b", "writer").handled()).isFalse();
			assertThat(send(chain, "DELETE", "/api/owners/%2B1-555-0100", "ops").handled()).isTrue();
			// looking a value up stays a read
			assertThat(send(chain, "GET", "/api/owners/%2B1-555-0100", "reader").handled()).isTrue();
		});
	}

	@Test
	void shouldAskForCredentialsWithAProblemAndTheSecurityHeaders() {
		this.runner.run((context) -> {
			Answer anonymous = send(context.getBean("springSecurityFilterChain", Filter.class), "GET",
					"/api/bindings/alice", null);
			assertThat(anonymous.handled()).isFalse();
			assertThat(anonymous.response().getStatus()).isEqualTo(401);
			assertThat(anonymous.response().getHeader("WWW-Authenticate")).startsWith("Basic");
			assertThat(anonymous.response().getContentAsString()).contains("This request needs credentials");
			assertSecurityHeaders(anonymous.response());
		});
	}

	@Test
	void shouldLeaveProbesDocsAndInstanceCallsOpenAndTheRestToAdmins() {
		this.runner.run((context) -> {
			Filter chain = context.getBean("springSecurityFilterChain", Filter.class);
			assertThat(send(chain, "GET", "/actuator/health/readiness", null).handled()).isTrue();
			assertThat(send(chain, "GET", "/actuator/prometheus", null).handled()).isTrue();
			assertThat(send(chain, "GET", "/v3/api-docs", null).handled()).isTrue();
			// the instance protocol checks its own signature
			assertThat(send(chain, "GET", "/internal/lookup/bindings", null).handled()).isTrue();
			assertThat(send(chain, "GET", "/actuator/env", "writer").response().getStatus()).isEqualTo(403);
			assertThat(send(chain, "GET", "/actuator/env", null).response().getStatus()).isEqualTo(401);
		});
	}

	private static void assertSecurityHeaders(MockHttpServletResponse response) {
		assertThat(response.getHeader("X-Content-Type-Options")).isEqualTo("nosniff");
		assertThat(response.getHeader("X-Frame-Options")).isEqualTo("DENY");
		assertThat(response.getHeader("Cache-Control")).contains("no-store");
	}

	/** What became of one request: whether it reached its handler, and the response. */
	private record Answer(boolean handled, MockHttpServletResponse response) {

	}

	private static Answer send(Filter chain, String method, String pathAndQuery, String user) throws Exception {
		int query = pathAndQuery.indexOf('?');
		String path = (query < 0) ? pathAndQuery : pathAndQuery.substring(0, query);
		MockHttpServletRequest request = new MockHttpServletRequest(method, path);
		if (query >= 0) {
			String[] parameter = pathAndQuery.substring(query + 1).split("=", 2);
			request.setQueryString(pathAndQuery.substring(query + 1));
			request.addParameter(parameter[0], parameter[1]);
		}
		if (user != null) {
			request.addHeader("Authorization", "Basic " + Base64.getEncoder()
				.encodeToString((user + ":secret").getBytes(StandardCharsets.UTF_8)));
		}
		MockHttpServletResponse response = new MockHttpServletResponse();
		AtomicReference<HttpServletRequest> reached = new AtomicReference<>();
		chain.doFilter(request, response, (passed, answered) -> reached.set((HttpServletRequest) passed));
		return new Answer(reached.get() != null, response);
	}

}
