package io.valueguard.security;

import java.time.Duration;
import java.time.Instant;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;

import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtException;

/**
 * Remembers tokens it has validated until the sooner of their expiry and {@code valueguard.security.token-cache-ttl}:
 * a client sends the same token with every request, and checking its RSA or EC signature each time costs more than
 * the lookup it authorizes. A token is only ever remembered after the full validation (signature, issuer, times)
 * passed, and never past its {@code exp}; a refused token is not remembered, so every bad token is checked in full.
 * Keyed by the token itself, not a hash of it (as Basic credentials are): the remembered {@link Jwt} holds the token
 * anyway, as every authentication made from it does, so hashing it on every request would protect nothing.
 */
final class CachingJwtDecoder implements JwtDecoder {

	private final JwtDecoder delegate;

	private final Cache<String, Jwt> validated;

	CachingJwtDecoder(JwtDecoder delegate, Duration ttl) {
		this.delegate = delegate;
		this.validated = Caffeine.newBuilder().maximumSize(10_000).expireAfter(new Expiry<String, Jwt>() {

			@Override
			public long expireAfterCreate(String key, Jwt jwt, long currentTime) {
				Instant expiresAt = jwt.getExpiresAt();
				long untilExpiry = (expiresAt != null) ? Duration.between(Instant.now(), expiresAt).toNanos()
						: Long.MAX_VALUE;
				return Math.max(0, Math.min(untilExpiry, ttl.toNanos()));
			}

			@Override
			public long expireAfterUpdate(String key, Jwt jwt, long currentTime, long currentDuration) {
				return currentDuration;
			}

			@Override
			public long expireAfterRead(String key, Jwt jwt, long currentTime, long currentDuration) {
				return currentDuration;
			}

		}).build();
	}

	@Override
	public Jwt decode(String token) throws JwtException {
		Jwt[] validatedNow = new Jwt[1];
		// concurrent requests with a token not yet known wait for one validation instead of each running its own
		Jwt jwt = this.validated.get(token, (unknown) -> validatedNow[0] = this.delegate.decode(token));
		if (jwt != validatedNow[0] && jwt.getExpiresAt() != null && !Instant.now().isBefore(jwt.getExpiresAt())) {
			// remembered, expired since and not yet evicted: the full check says whether it still passes, and why not
			this.validated.invalidate(token);
			return this.delegate.decode(token);
		}
		return jwt;
	}

}
