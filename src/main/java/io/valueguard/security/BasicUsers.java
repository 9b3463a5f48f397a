package io.valueguard.security;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.valueguard.config.SecurityProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.security.authentication.AuthenticationProvider;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.SimpleGrantedAuthority;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

/**
 * HTTP Basic users from {@code valueguard.security.users}: bcrypt hashes, roles mapped to the configured authorities.
 * bcrypt is slow on purpose, so a verified credential is remembered for {@code basic-cache-ttl} by a SHA-256 of the
 * name and password (never the password itself): bcrypt then runs once per client and period, not on every request.
 * A wrong password is never remembered, so every guess still costs a bcrypt.
 */
final class BasicUsers implements AuthenticationProvider {

	private static final BCryptPasswordEncoder BCRYPT = new BCryptPasswordEncoder();

	/** A password bcrypt is asked to check for an unknown user, so that the answer takes as long as for a known one. */
	private static final String UNKNOWN_USER_HASH = BCRYPT.encode("valueguard-unknown-user");

	private record User(String name, String hash, List<SimpleGrantedAuthority> authorities) {

	}

	private final Map<String, User> users;

	private final @Nullable Cache<String, Authentication> verified;

	BasicUsers(SecurityProperties security) {
		SecurityProperties.Authorities authorities = security.authorities();
		this.users = security.users()
			.stream()
			.map((user) -> new User(user.name(), user.password().replaceFirst("^\\{bcrypt\\}", ""),
					user.roles().stream().map((role) -> new SimpleGrantedAuthority(switch (role) {
						case READ -> authorities.read();
						case WRITE -> authorities.write();
						case ADMIN -> authorities.admin();
					})).toList()))
			.collect(Collectors.toMap(User::name, Function.identity()));
		Duration ttl = security.basicCacheTtl();
		this.verified = ttl.isZero() ? null
				: Caffeine.newBuilder().expireAfterWrite(ttl).maximumSize(10_000).build();
	}

	@Override
	public Authentication authenticate(Authentication authentication) {
		String name = authentication.getName();
		String password = String.valueOf(authentication.getCredentials());
		if (this.verified == null) {
			return verify(name, password);
		}
		String fingerprint = Fingerprints.sha256(name + '\u0000' + password);
		Authentication known = this.verified.getIfPresent(fingerprint);
		if (known != null) {
			return known;
		}
		Authentication checked = verify(name, password);
		this.verified.put(fingerprint, checked);
		return checked;
	}

	private Authentication verify(String name, String password) {
		User user = this.users.get(name);
		boolean matches = BCRYPT.matches(password, (user != null) ? user.hash() : UNKNOWN_USER_HASH);
		if (user == null || !matches) {
			throw new BadCredentialsException("Bad credentials");
		}
		return UsernamePasswordAuthenticationToken.authenticated(name, null, user.authorities());
	}

	@Override
	public boolean supports(Class<?> authentication) {
		return UsernamePasswordAuthenticationToken.class.isAssignableFrom(authentication);
	}

}
