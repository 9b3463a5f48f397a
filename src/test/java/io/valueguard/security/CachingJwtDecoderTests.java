package io.valueguard.security;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import org.springframework.security.oauth2.jwt.BadJwtException;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * A validated token is checked once, also by concurrent first requests, never remembered past its expiry, and a refused
 * one is never remembered.
 */
class CachingJwtDecoderTests {

	private final JwtDecoder validator = mock(JwtDecoder.class);

	private final CachingJwtDecoder decoder = new CachingJwtDecoder(this.validator, Duration.ofMinutes(5));

	@Test
	void shouldValidateATokenOnceWhileItIsValid() {
		Jwt jwt = jwt(Instant.now().plusSeconds(600));
		given(this.validator.decode("token")).willReturn(jwt);

		assertThat(this.decoder.decode("token")).isSameAs(jwt);
		assertThat(this.decoder.decode("token")).isSameAs(jwt);

		verify(this.validator, times(1)).decode("token");
	}

	@Test
	void shouldValidateAgainOnceTheTokenHasExpired() {
		given(this.validator.decode("token")).willReturn(jwt(Instant.now().minusSeconds(1)));

		this.decoder.decode("token");
		this.decoder.decode("token");

		verify(this.validator, times(2)).decode("token");
	}

	@Test
	void shouldValidateANewTokenOnceForConcurrentRequests() throws Exception {
		Jwt jwt = jwt(Instant.now().plusSeconds(600));
		CountDownLatch validating = new CountDownLatch(1);
		CountDownLatch release = new CountDownLatch(1);
		given(this.validator.decode("token")).willAnswer((invocation) -> {
			validating.countDown();
			release.await();
			return jwt;
		});
		ExecutorService requests = Executors.newFixedThreadPool(8);
		try {
			List<Future<Jwt>> answers = new ArrayList<>();
			answers.add(requests.submit(() -> this.decoder.decode("token")));
			validating.await();
			for (int i = 1; i < 8; i++) {
				answers.add(requests.submit(() -> this.decoder.decode("token")));
			}
			Thread.sleep(100);
			release.countDown();
			for (Future<Jwt> answer : answers) {
				assertThat(answer.get(10, TimeUnit.SECONDS)).isSameAs(jwt);
			}
		}
		finally {
			requests.shutdownNow();
		}
		verify(this.validator, times(1)).decode("token");
	}

	@Test
	void shouldNeverRememberARefusedToken() {
		given(this.validator.decode("forged")).willThrow(new BadJwtException("signature invalid"));

		for (int i = 0; i < 2; i++) {
			assertThatExceptionOfType(BadJwtException.class).isThrownBy(() -> this.decoder.decode("forged"));
		}
		verify(this.validator, times(2)).decode("forged");
	}

	private static Jwt jwt(Instant expiresAt) {
		return Jwt.withTokenValue("token")
			.header("alg", "RS256")
			.subject("alice")
			.issuedAt(expiresAt.minusSeconds(3600))
			.expiresAt(expiresAt)
			.build();
	}

}
