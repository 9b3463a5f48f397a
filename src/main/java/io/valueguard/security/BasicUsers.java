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
import org.springframework.security.crypto.password.PasswordEncoder;

/**
 * HTTP Basic users from {@code valueguard.security.users}: bcrypt hashes, roles mapped to the configured authorities.
 * bcrypt is slow on purpose, so a verified credential is remembered for {@code basic-cache-ttl} by a SHA-256 of the
 * name and password (never the password itself): bcrypt then runs once per client and period, not on every request,
 * and not once per concurrent request either. A wrong password is never remembered, so every guess still costs a
 * bcrypt.
 */
final class BasicUsers implements AuthenticationProvider {

	private final PasswordEncoder bcrypt;

	/** A password bcrypt is asked to check for an unknown user, so that the answer takes as long as for a known one. */
	private final String unknownUserHash;

	private record User(String name, String hash, List<SimpleGrantedAuthority> authorities) {

	}

	private final Map<String, User> users;

	private final @Nullable Cache<String, Authentication> verified;

	BasicUsers(SecurityProperties security) {
		this(security, new BCryptPasswordEncoder());
	}

	BasicUsers(SecurityProperties security, PasswordEncoder bcrypt) {
		this.bcrypt = bcrypt;
		this.unknownUserHash = bcrypt.encode("valueguard-unknown-user");
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
		// one bcrypt per credential and period: the client's other requests meanwhile wait for it rather than run
		// bcrypts of their own (eight connections missing together once cost a second of CPU on two cores)
		return this.verified.get(Fingerprints.sha256(name + '\u0000' + password), (fingerprint) -> verify(name, password));
	}

	private Authentication verify(String name, String password) {
		User user = this.users.get(name);
		boolean matches = this.bcrypt.matches(password, (user != null) ? user.hash() : this.unknownUserHash);
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
