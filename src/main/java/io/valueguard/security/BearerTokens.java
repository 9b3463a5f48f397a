package io.valueguard.security;

import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpHeaders;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.oauth2.server.resource.BearerTokenErrors;
import org.springframework.security.oauth2.server.resource.web.BearerTokenResolver;

/**
 * The bearer token of a request, from its {@code Authorization} header only, as Spring Security's default resolver
 * takes it with query and form parameters off (its default): {@code Bearer} in any case, one space, then an RFC 6750
 * {@code b64token}; anything else that starts with {@code bearer} is a malformed token. It checks the token with a
 * loop instead of a case-insensitive regular expression, which cost a bearer lookup more than validating the cached
 * token (BearerTokensTests compares both on generated headers).
 */
final class BearerTokens implements BearerTokenResolver {

	private static final String SCHEME = "bearer";

	@Override
	public @Nullable String resolve(HttpServletRequest request) {
		String authorization = request.getHeader(HttpHeaders.AUTHORIZATION);
		if (authorization == null || !authorization.regionMatches(true, 0, SCHEME, 0, SCHEME.length())) {
			return null;
		}
		if (!wellFormed(authorization)) {
			throw new OAuth2AuthenticationException(BearerTokenErrors.invalidToken("Bearer token is malformed"));
		}
		return authorization.substring(SCHEME.length() + 1);
	}

	/** {@code Bearer} (any case) and one space, then {@code 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="}. */
	private static boolean wellFormed(String authorization) {
		int start = SCHEME.length() + 1;
		if (authorization.length() <= start || authorization.charAt(SCHEME.length()) != ' ') {
			return false;
		}
		int i = start;
		while (i < authorization.length() && tokenCharacter(authorization.charAt(i))) {
			i++;
		}
		if (i == start) {
			return false;
		}
		while (i < authorization.length() && authorization.charAt(i) == '=') {
			i++;
		}
		return i == authorization.length();
	}

	private static boolean tokenCharacter(char c) {
		return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
				|| c == '_' || c == '~' || c == '+' || c == '/';
	}

}
