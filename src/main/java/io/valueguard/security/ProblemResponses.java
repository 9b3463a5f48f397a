package io.valueguard.security;

import java.io.IOException;

import io.valueguard.routing.ProblemTypes;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.AuthenticationException;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.OAuth2AuthenticationException;
import org.springframework.security.web.AuthenticationEntryPoint;
import org.springframework.security.web.access.AccessDeniedHandler;

/**
 * 401 and 403 as RFC 9457 problem bodies, never an HTML page or a stack trace: a 401 says which credentials the API
 * takes in {@code WWW-Authenticate}, a 403 names the missing authority or the key the credential may use.
 */
final class ProblemResponses implements AuthenticationEntryPoint, AccessDeniedHandler {

	private final ApiPermissions permissions;

	private final boolean bearer;

	private final boolean basic;

	ProblemResponses(ApiPermissions permissions, boolean bearer, boolean basic) {
		this.permissions = permissions;
		this.bearer = bearer;
		this.basic = basic;
	}

	@Override
	public void commence(HttpServletRequest request, HttpServletResponse response, AuthenticationException failure)
			throws IOException {
		boolean badToken = failure instanceof OAuth2AuthenticationException;
		if (this.bearer) {
			response.addHeader(HttpHeaders.WWW_AUTHENTICATE, badToken ? "Bearer error=\"invalid_token\"" : "Bearer");
		}
		if (this.basic) {
			response.addHeader(HttpHeaders.WWW_AUTHENTICATE, "Basic realm=\"valueguard\", charset=\"UTF-8\"");
		}
		String detail = badToken ? "The bearer token was refused: " + reason((OAuth2AuthenticationException) failure)
				: (request.getHeader(HttpHeaders.AUTHORIZATION) != null) ? "The credentials were refused"
						: "This request needs credentials: " + accepted();
		ProblemTypes.write(response, 401, "unauthorized", "Unauthorized", detail);
	}

	@Override
	public void handle(HttpServletRequest request, HttpServletResponse response, AccessDeniedException denied)
			throws IOException {
		ProblemTypes.write(response, 403, "forbidden", "Forbidden",
				this.permissions.denial(request, SecurityContextHolder.getContext().getAuthentication()));
	}

	private String accepted() {
		return (this.bearer && this.basic) ? "a bearer token or HTTP Basic" : this.bearer ? "a bearer token" : "HTTP Basic";
	}

	/** What the token validation said, without echoing the token. */
	private static String reason(OAuth2AuthenticationException failure) {
		String description = failure.getError().getDescription();
		return (description != null) ? description : failure.getError().getErrorCode();
	}

}
