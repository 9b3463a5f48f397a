package io.valueguard.security;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;
import org.springframework.security.oauth2.server.resource.web.DefaultBearerTokenResolver;

import static org.assertj.core.api.Assertions.assertThat;

/** The token taken from a request, or the refusal, is the one Spring Security's default resolver gives. */
class BearerTokensTests {

	private final BearerTokenResolver tokens = new BearerTokens();

	private final BearerTokenResolver spring = new DefaultBearerTokenResolver();

	@Test
	void shouldTakeTheTokenOfABearerHeader() {
		assertThat(this.tokens.resolve(request("Bearer eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl"))).isEqualTo("eyJhbGciOi.eyJzdWIi.c2lnbmF0dXJl");
		assertThat(this.tokens.resolve(request("bEaReR abc+/_~-.=="))).isEqualTo("abc+/_~-.==");
	}

	@Test
	void shouldLeaveOtherCredentialsAndNoneToTheOtherFilters() {
		assertThat(this.tokens.resolve(request("Basic cmVhZGVyOnNlY3JldA=="))).isNull();
		assertThat(this.tokens.resolve(request(null))).isNull();
	}

	@Test
	void shouldAnswerAsSpringSecuritysResolverForHeadersOfEveryShape() {
		String[] fixed = { "Bearer", "Bearer ", "Bearer  abc", "Bearer abc ", "Bearer a=b", "Bearer ==", "Bearer abc\n",
				"bearerabc", "Bearer\tabc", "BEARER abc", "Bearer ab%c", "Bearer ab,c", "Bearer abc=\u00e9", "Beare",
				"\u017fearer abc", "Bearer \u212a" };
		for (String header : fixed) {
			assertSameAnswer(header);
		}
		String[] pieces = { "Bearer", "bearer", "BeArEr", " ", "  ", "abc", "XYZ09", "-._~+/", "=", "==", "%", "\t", "\n",
				"\u00e9", "\u212a", "Basic", "" };
		SplittableRandom random = new SplittableRandom(20261202);
		for (int i = 0; i < 50_000; i++) {
			StringBuilder header = new StringBuilder();
			for (int j = random.nextInt(1, 6); j > 0; j--) {
				header.append(pieces[random.nextInt(pieces.length)]);
			}
			assertSameAnswer(header.toString());
		}
	}

	private void assertSameAnswer(String header) {
		assertThat(answer(this.tokens, header)).as("answer to %s", header.chars().boxed().toList())
			.isEqualTo(answer(this.spring, header));
	}

	/** The token a resolver takes from a request with this header, or why it refuses it. */
	private static String answer(BearerTokenResolver resolver, String header) {
		try {
			return "token " + resolver.resolve(request(header));
		}
		catch (OAuth2AuthenticationException refused) {
			return "refused, " + refused.getError().getErrorCode() + ": " + refused.getError().getDescription();
		}
	}

	private static MockHttpServletRequest request(String authorization) {
		MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api/bindings/alice");
		if (authorization != null) {
			request.addHeader("Authorization", authorization);
		}
		return request;
	}

}
