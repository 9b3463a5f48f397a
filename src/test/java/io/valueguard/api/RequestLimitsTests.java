package io.valueguard.api;

import java.time.Duration;
import java.util.Map;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.valueguard.claims.ClaimPublisher;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.RulingBell;
import io.valueguard.routing.LookupRouter;
import io.valueguard.support.TestProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.mock.web.MockFilterChain;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verifyNoInteractions;

/** The limits that keep a few clients from taking the service: body size, and requests that wait. */
class RequestLimitsTests {

	private final RequestSizeLimit limit = new RequestSizeLimit(settings("2KB"));

	@Test
	void shouldRefuseABodyWhoseLengthIsOverTheLimitWithoutReadingIt() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("PUT", "/api/bindings/alice");
		request.setContent(new byte[2049]);
		MockHttpServletResponse response = new MockHttpServletResponse();
		MockFilterChain chain = new MockFilterChain();

		this.limit.doFilter(request, response, chain);

		assertThat(response.getStatus()).isEqualTo(413);
		assertThat(response.getContentType()).isEqualTo("application/problem+json");
		assertThat(response.getContentAsString()).contains("larger than 2048 bytes");
		assertThat(chain.getRequest()).as("the handler never ran").isNull();
	}

	@Test
	void shouldStopAChunkedBodyOnceItPassesTheLimit() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("PUT", "/api/bindings/alice") {

			@Override
			public long getContentLengthLong() {
				return -1;
			}

		};
		request.setContent(new byte[5000]);
		MockFilterChain chain = new MockFilterChain();

		this.limit.doFilter(request, new MockHttpServletResponse(), chain);

		assertThatExceptionOfType(RequestSizeLimit.TooLarge.class)
			.isThrownBy(() -> chain.getRequest().getInputStream().readAllBytes())
			.withMessageContaining("larger than 2048 bytes");
	}

	@Test
	void shouldLetABodyWithinTheLimitThrough() throws Exception {
		MockHttpServletRequest request = new MockHttpServletRequest("PUT", "/api/bindings/alice");
		request.setContent(new byte[2048]);
		MockFilterChain chain = new MockFilterChain();

		this.limit.doFilter(request, new MockHttpServletResponse(), chain);

		assertThat(chain.getRequest().getInputStream().readAllBytes()).hasSize(2048);
	}

	@Test
	void shouldNotWaitBeyondTheWaitingLimit() {
		LookupRouter router = mock(LookupRouter.class);
		SimpleMeterRegistry registry = new SimpleMeterRegistry();
		ClaimRulings rulings = new ClaimRulings(router, TestProperties.query(Map.of("max-waiting", "0")),
				TestProperties.defaults(), new RulingBell(), registry);
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("alice", "phone", "valueguard.claims", 0, 0, 1);

		assertThat(rulings.ruling(receipt, Duration.ofSeconds(5))).as("answered at once, as a 202")
			.isCompletedWithValue(null);
		assertThat(rulings.release(receipt, Duration.ofSeconds(5))).isCompletedWithValue(null);
		verifyNoInteractions(router);
		assertThat(registry.get("valueguard.waits").tag("outcome", "refused").counter().count()).isEqualTo(2);
	}

	private static ValueGuardProperties settings(String maxRequestBytes) {
		return new Binder(new MapConfigurationPropertySource(
				java.util.Map.of("valueguard.limits.max-request-bytes", maxRequestBytes)))
			.bindOrCreate("valueguard", ValueGuardProperties.class);
	}

}
