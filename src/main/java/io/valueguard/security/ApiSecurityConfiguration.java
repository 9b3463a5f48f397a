package io.valueguard.security;

import io.valueguard.config.SecurityProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.security.oauth2.server.resource.autoconfigure.OAuth2ResourceServerProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.ObjectPostProcessor;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.WebSecurityCustomizer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.security.web.header.HeaderWriterFilter;

/**
 * Who may call what. JWT bearer tokens when Spring Boot's resource server has an issuer, a JWK set or a public key
 * configured (it then makes the {@link JwtDecoder}), HTTP Basic when {@code valueguard.security.users} is set, both at once if both are; with neither the
 * API is open, with one WARN, unless {@code valueguard.security.require-authentication} says to refuse to start.
 * {@code /internal/*} is left to the instance protocol's own signature ({@code routing/RequestSignature}), which a
 * secured API requires; health, Prometheus and info stay readable for probes and scrapes, which the management port
 * and the chart's NetworkPolicy keep to the cluster.
 */
@Configuration(proxyBeanMethods = false)
class ApiSecurityConfiguration {

	private static final Log logger = LogFactory.getLog(ApiSecurityConfiguration.class);

	private static final String[] API_DOCS = { "/v3/api-docs", "/v3/api-docs/**", "/swagger-ui.html",
			"/swagger-ui/**" };

	private static final String[] PROBES_AND_SCRAPES = { "/actuator/health", "/actuator/health/**",
			"/actuator/prometheus", "/actuator/info" };

	/**
	 * No observation of Spring Security's filters, authentications and authorizations: a timer and a span per step of
	 * every request cost more than the lookup they guard, and {@code http.server.requests} already counts requests.
	 */
	@Bean
	SecurityObservationSettings securityObservationSettings() {
		return SecurityObservationSettings.noObservations();
	}

	/**
	 * Spring Security's firewall with its usual rules, but its checks of header and parameter names and header values
	 * done without regular expressions ({@link HeaderCharacters}): with them, reading a bearer token's header cost more
	 * than the rest of a secured lookup's security.
	 */
	@Bean
	WebSecurityCustomizer requestFirewall() {
		StrictHttpFirewall firewall = new StrictHttpFirewall();
		firewall.setAllowedHeaderNames(HeaderCharacters::name);
		firewall.setAllowedHeaderValues(HeaderCharacters::value);
		firewall.setAllowedParameterNames(HeaderCharacters::name);
		return (web) -> web.httpFirewall(firewall);
	}

	/**
	 * The calls instances make to each other: the protocol checks its own signature ({@code routing/RequestSignature}),
	 * so none of the API's filters (token and Basic parsing, authorization rules, response headers) run for them.
	 */
	@Bean
	@Order(1)
	SecurityFilterChain instanceCalls(HttpSecurity http) throws Exception {
		return http.securityMatcher("/internal/**")
			.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll())
			.csrf((csrf) -> csrf.disable())
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache((cache) -> cache.disable())
			.headers((headers) -> headers.disable())
			.anonymous((anonymous) -> anonymous.disable())
			.formLogin((form) -> form.disable())
			.logout((logout) -> logout.disable())
			.build();
	}

	@Bean
	SecurityFilterChain apiSecurity(HttpSecurity http, SecurityProperties security,
			ObjectProvider<OAuth2ResourceServerProperties> resourceServerProperties, ObjectProvider<JwtDecoder> jwtDecoder)
			throws Exception {
		boolean bearer = bearerConfigured(resourceServerProperties.getIfAvailable());
		boolean basic = security.basic();
		http.csrf((csrf) -> csrf.disable())
			.sessionManagement((sessions) -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
			.requestCache((cache) -> cache.disable())
			.formLogin((form) -> form.disable())
			.logout((logout) -> logout.disable())
			.headers((headers) -> headers.withObjectPostProcessor(new ObjectPostProcessor<HeaderWriterFilter>() {

				// The security headers are the same for every response and nothing here sets them: written before
				// the request is handled, they need no wrappers around the request and the response to catch the
				// moment the response commits.
				@Override
				public <O extends HeaderWriterFilter> O postProcess(O filter) {
					filter.setShouldWriteHeadersEagerly(true);
					return filter;
				}

			}));
		if (!bearer && !basic) {
			return open(http, security);
		}
		if (security.internalSecret() == null) {
			throw new IllegalStateException("The API is secured, so instances must prove their requests to each other: "
					+ "set valueguard.security.internal-secret (at least 32 characters, the same on every instance)");
		}
		ApiPermissions permissions = new ApiPermissions(security);
		ProblemResponses problems = new ProblemResponses(permissions, bearer, basic);
		// The API's rules first: each path rule parses the request's path anew (method rules refuse other methods
		// without parsing), so a lookup is decided after one parse instead of eleven. The groups do not overlap, so
		// their order changes no decision.
		http.authorizeHttpRequests((requests) -> {
			requests.requestMatchers(HttpMethod.PUT, ApiPermissions.BINDINGS, ApiPermissions.BINDINGS + "/**")
				.access(permissions.write())
				.requestMatchers(HttpMethod.DELETE, ApiPermissions.BINDINGS, ApiPermissions.BINDINGS + "/**")
				.access(permissions.write())
				// freeing a value releases whichever key holds it: not a key's own write
				.requestMatchers(HttpMethod.DELETE, ApiPermissions.OWNERS, ApiPermissions.OWNERS + "/**")
				.access(permissions.admin())
				.requestMatchers("/api/**")
				.access(permissions.read())
				.requestMatchers("/internal/**", "/error")
				.permitAll()
				.requestMatchers(PROBES_AND_SCRAPES)
				.permitAll();
			if (security.publicApiDocs()) {
				requests.requestMatchers(API_DOCS).permitAll();
			}
			else {
				requests.requestMatchers(API_DOCS).access(permissions.read());
			}
			requests.anyRequest().access(permissions.admin());
		});
		if (bearer) {
			JwtDecoder decoder = jwtDecoder.getObject();
			JwtDecoder tokens = security.tokenCacheTtl().isZero() ? decoder
					: new CachingJwtDecoder(decoder, security.tokenCacheTtl());
			http.oauth2ResourceServer((resourceServer) -> resourceServer.bearerTokenResolver(new BearerTokens())
				.jwt((jwt) -> jwt.decoder(tokens))
				.authenticationEntryPoint(problems)
				.accessDeniedHandler(problems));
		}
		if (basic) {
			http.httpBasic((httpBasic) -> httpBasic.authenticationEntryPoint(problems))
				.authenticationProvider(new BasicUsers(security));
		}
		http.exceptionHandling((exceptions) -> exceptions.authenticationEntryPoint(problems)
			.accessDeniedHandler(problems));
		logger.info("The API takes " + (bearer ? "bearer tokens" : "") + ((bearer && basic) ? " and " : "")
				+ (basic ? "HTTP Basic (" + security.users().size() + " users)" : "")
				+ ((security.keyClaim() != null) ? "; claims only for the caller's own key ('"
						+ security.keyClaim() + "')" : ""));
		return http.build();
	}

	/** Whether a JWT issuer, JWK set or public key is configured: only then does the API take bearer tokens. */
	private static boolean bearerConfigured(@Nullable OAuth2ResourceServerProperties resourceServer) {
		if (resourceServer == null) {
			return false;
		}
		OAuth2ResourceServerProperties.Jwt jwt = resourceServer.getJwt();
		return jwt.getIssuerUri() != null || jwt.getJwkSetUri() != null || jwt.getPublicKeyLocation() != null;
	}

	private static SecurityFilterChain open(HttpSecurity http, SecurityProperties security) throws Exception {
		if (security.requireAuthentication()) {
			throw new IllegalStateException("valueguard.security.require-authentication is true, but no way to "
					+ "authenticate is configured: set spring.security.oauth2.resourceserver.jwt.issuer-uri (or "
					+ "jwk-set-uri) for bearer tokens, or valueguard.security.users for HTTP Basic, or set "
					+ "valueguard.security.require-authentication=false to run an open API");
		}
		logger.warn("The API is open: anyone who reaches it can claim and release any key. Configure "
				+ "spring.security.oauth2.resourceserver.jwt.issuer-uri or valueguard.security.users (docs/security.md)");
		return http.authorizeHttpRequests((requests) -> requests.anyRequest().permitAll()).build();
	}

}
