package io.valueguard.security;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Set;
import java.util.function.Supplier;

import io.valueguard.config.SecurityProperties;
import jakarta.servlet.http.HttpServletRequest;
import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.authorization.AuthorizationResult;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.GrantedAuthority;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationToken;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;
import org.springframework.web.util.UriUtils;

/**
 * What each kind of request needs: reads the read authority, claims and releases the write authority and, with
 * {@code valueguard.security.key-claim}, a key equal to the caller's own; freeing a value from whichever key holds it
 * the admin authority, which grants everything. The same rules explain a refusal ({@link #denial}), so that a 403
 * names what was missing.
 */
final class ApiPermissions {

	/** Where claims and releases name their key in the path; the query form carries it as {@code ?key=}. */
	static final String BINDINGS = "/api/bindings";

	/** Where values are looked up, and freed from their holders by administrators. */
	static final String OWNERS = "/api/owners";

	private final SecurityProperties.Authorities authorities;

	private final @Nullable String keyClaim;

	private final Set<String> reading;

	private final Set<String> writing;

	ApiPermissions(SecurityProperties security) {
		this.authorities = security.authorities();
		this.keyClaim = security.keyClaim();
		this.reading = Set.of(this.authorities.read());
		this.writing = Set.of(this.authorities.write());
	}

	AuthorizationManager<RequestAuthorizationContext> read() {
		return (authentication, context) -> decide(has(authentication, this.reading));
	}

	AuthorizationManager<RequestAuthorizationContext> write() {
		return (authentication, context) -> decide(
				has(authentication, this.writing) && keyAllowed(authentication, context.getRequest()));
	}

	AuthorizationManager<RequestAuthorizationContext> admin() {
		return (authentication, context) -> decide(has(authentication, Set.of()));
	}

	/** Why a request that reached its handler's rules was refused, for the 403's detail. */
	String denial(HttpServletRequest request, @Nullable Authentication authentication) {
		String needed = needed(request);
		if (!has(() -> authentication, Set.of(needed))) {
			return "This request needs the authority " + needed + " (or " + this.authorities.admin() + ")";
		}
		String key = keyOf(request);
		return "This credential may claim and release only the key '" + ownKey(authentication) + "', not "
				+ ((key != null) ? "'" + key + "'" : "a key this request does not name plainly (use ?key=)");
	}

	private String needed(HttpServletRequest request) {
		String path = request.getRequestURI().substring(request.getContextPath().length());
		if (!path.startsWith("/api/") || (request.getMethod().equals("DELETE")
				&& (path.equals(OWNERS) || path.startsWith(OWNERS + "/")))) {
			return this.authorities.admin();
		}
		boolean write = (request.getMethod().equals("PUT") || request.getMethod().equals("DELETE"))
				&& (path.equals(BINDINGS) || path.startsWith(BINDINGS + "/"));
		return write ? this.authorities.write() : this.authorities.read();
	}

	private static AuthorizationResult decide(boolean granted) {
		return new AuthorizationDecision(granted);
	}

	/** Whether the caller holds one of {@code granting}, or the admin authority, which grants everything. */
	private boolean has(Supplier<? extends @Nullable Authentication> supplier, Set<String> granting) {
		Authentication authentication = supplier.get();
		if (authentication == null || !authentication.isAuthenticated()
				|| authentication instanceof AnonymousAuthenticationToken) {
			return false;
		}
		Collection<? extends GrantedAuthority> held = authentication.getAuthorities();
		return held.stream()
			.map(GrantedAuthority::getAuthority)
			.anyMatch((authority) -> granting.contains(authority) || this.authorities.admin().equals(authority));
	}

	private boolean keyAllowed(Supplier<? extends @Nullable Authentication> supplier, HttpServletRequest request) {
		Authentication authentication = supplier.get();
		if (this.keyClaim == null || has(supplier, Set.of(this.authorities.admin()))) {
			return true;
		}
		String own = ownKey(authentication);
		return own != null && own.equals(keyOf(request));
	}

	/** The key the caller may use: the token's {@code key-claim}, or a Basic user's name. */
	private @Nullable String ownKey(@Nullable Authentication authentication) {
		if (authentication instanceof JwtAuthenticationToken token) {
			return token.getToken().getClaimAsString(this.keyClaim);
		}
		return (authentication != null) ? authentication.getName() : null;
	}

	/**
	 * The key a claim or release names: the decoded path segment after {@code /api/bindings/}, or {@code ?key=}; null
	 * when the path has more segments or a {@code ;} (whose meaning the container and MVC may read differently).
	 */
	static @Nullable String keyOf(HttpServletRequest request) {
		String path = request.getRequestURI().substring(request.getContextPath().length());
		if (path.startsWith(BINDINGS + "/")) {
			String segment = path.substring(BINDINGS.length() + 1);
			if (segment.isEmpty() || segment.contains("/") || segment.contains(";")) {
				return null;
			}
			return UriUtils.decode(segment, StandardCharsets.UTF_8);
		}
		return path.equals(BINDINGS) ? request.getParameter("key") : null;
	}

}
