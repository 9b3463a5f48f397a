package io.valueguard.config;

import java.time.Duration;
import java.util.List;
import java.util.Set;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotEmpty;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Size;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Who may use the API and how instances prove to each other that a request is theirs, under
 * {@code valueguard.security.*} (docs/security.md). JWT bearer tokens are on when Spring Boot's
 * {@code spring.security.oauth2.resourceserver.jwt.issuer-uri} or {@code jwk-set-uri} is set; HTTP Basic when
 * {@code users} is not empty; both may be on. With neither the API is open, as on a laptop.
 *
 * @param requireAuthentication refuse to start when neither mechanism is configured (the Helm chart's default)
 * @param authorities the authorities that grant reading, writing and everything (a JWT's scopes become
 * {@code SCOPE_<scope>} authorities; Basic users get these from their roles)
 * @param keyClaim with it, a token may claim or release only the key equal to this claim of the token (such as
 * {@code sub}), and a Basic user only the key equal to its name, unless it has the admin authority
 * @param users HTTP Basic users, each with a bcrypt hash of its password and its roles
 * @param internalSecret the key of the HMAC-SHA256 signature every instance puts on its requests to another and
 * checks on theirs; the same on every instance, at least 32 characters; required when the API is secured
 * @param internalWindow how far a signed request's time may be from the receiving instance's clock (replays)
 * @param publicApiDocs let {@code /v3/api-docs} and {@code /swagger-ui} be read without credentials
 * @param basicCacheTtl how long a verified Basic credential is remembered (by a hash of the header, never the
 * password), so that bcrypt runs once per client per period, not per request; 0 turns that off
 * @param tokenCacheTtl how long a validated bearer token is remembered (never past its expiry), so that its
 * signature is checked once per period, not per request; 0 turns that off
 */
@ConfigurationProperties("valueguard.security")
@Validated
public record SecurityProperties(@DefaultValue("false") boolean requireAuthentication,
		@DefaultValue @Valid Authorities authorities, @Nullable @Size(min = 1) String keyClaim,
		@DefaultValue List<@Valid User> users, @Nullable @Size(min = 32,
				message = "must be at least 32 characters") String internalSecret,
		@DefaultValue("30s") Duration internalWindow, @DefaultValue("true") boolean publicApiDocs,
		@DefaultValue("1m") Duration basicCacheTtl, @DefaultValue("5m") Duration tokenCacheTtl) {

	/**
	 * @param read lookups, listings, batch lookups, {@code /api/claims}, {@code /api/instances}
	 * @param write claims and releases
	 * @param admin everything, any key, and health details
	 */
	public record Authorities(@DefaultValue("SCOPE_valueguard.read") @NotBlank String read,
			@DefaultValue("SCOPE_valueguard.write") @NotBlank String write,
			@DefaultValue("SCOPE_valueguard.admin") @NotBlank String admin) {

	}

	/**
	 * @param name the user name, and with {@code key-claim} set the only key it may claim
	 * @param password a bcrypt hash, as {@code htpasswd -nbBC 10 name password} writes it, with or without
	 * {@code {bcrypt}} before it
	 * @param roles what the user may do
	 */
	public record User(@NotBlank String name,
			@NotBlank @Pattern(regexp = "(\\{bcrypt\\})?\\$2[aby]?\\$\\d\\d\\$[./A-Za-z0-9]{53}",
					message = "must be a bcrypt hash ($2a$, $2b$ or $2y$), never the password itself") String password,
			@NotEmpty Set<Role> roles) {

	}

	/** What a Basic user may do; each grants the authority of the same name. */
	public enum Role {

		READ, WRITE, ADMIN

	}

	/** Whether HTTP Basic is on. */
	public boolean basic() {
		return !this.users.isEmpty();
	}

}
