package io.valueguard.support;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.nimbusds.jose.jwk.source.JWKSource;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration;
import org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration;
import org.springframework.boot.security.oauth2.server.authorization.autoconfigure.servlet.OAuth2AuthorizationServerAutoConfiguration;
import org.springframework.boot.security.oauth2.server.authorization.autoconfigure.servlet.OAuth2AuthorizationServerJwtAutoConfiguration;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.error.ErrorMvcAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.security.oauth2.jwt.JwsHeader;
import org.springframework.security.oauth2.jwt.JwtClaimsSet;
import org.springframework.security.oauth2.jwt.JwtEncoderParameters;
import org.springframework.security.oauth2.jwt.NimbusJwtEncoder;

/**
 * A real OAuth 2.0 authorization server in the test JVM (Spring Authorization Server, as Spring Boot configures it
 * from properties), on a port of its own: each client gets tokens for its scopes by the client-credentials grant at
 * the token endpoint, with {@code sub} the client id. Its signing key can also sign tokens the endpoint would never
 * issue (expired ones), to test what a resource server refuses.
 */
public final class TestIssuer implements AutoCloseable {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** Only what an authorization server needs: no scan, so nothing of ValueGuard's joins it. */
	@ImportAutoConfiguration({ TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
			WebMvcAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class, JacksonAutoConfiguration.class,
			ErrorMvcAutoConfiguration.class, SecurityAutoConfiguration.class, ServletWebSecurityAutoConfiguration.class,
			SecurityFilterAutoConfiguration.class, OAuth2AuthorizationServerAutoConfiguration.class,
			OAuth2AuthorizationServerJwtAutoConfiguration.class })
	static class Server {

	}

	private final ConfigurableApplicationContext context;

	private final String issuer;

	private final Map<String, Set<String>> clients;

	private final HttpClient http = HttpClient.newHttpClient();

	private TestIssuer(ConfigurableApplicationContext context, String issuer, Map<String, Set<String>> clients) {
		this.context = context;
		this.issuer = issuer;
		this.clients = clients;
	}

	/** Starts an issuer with these clients (client id to scopes); each client's secret is {@code secret-<id>}. */
	public static TestIssuer start(Map<String, Set<String>> clients) {
		int port = FreePorts.next();
		String issuer = "http://localhost:" + port;
		List<String> args = new ArrayList<>(List.of("--server.port=" + port, "--spring.main.banner-mode=off",
				"--valueguard.embedded-kafka.enabled=false", "--spring.security.oauth2.authorizationserver.issuer=" + issuer));
		clients.forEach((id, scopes) -> {
			String prefix = "--spring.security.oauth2.authorizationserver.client." + id + ".registration.";
			args.add(prefix + "client-id=" + id);
			args.add(prefix + "client-secret={noop}secret-" + id);
			args.add(prefix + "client-authentication-methods=client_secret_basic");
			args.add(prefix + "authorization-grant-types=client_credentials");
			args.add(prefix + "scopes=" + String.join(",", scopes));
		});
		ConfigurableApplicationContext context = new SpringApplicationBuilder(Server.class).run(args.toArray(String[]::new));
		return new TestIssuer(context, issuer, Map.copyOf(clients));
	}

	/** What resource servers set as {@code spring.security.oauth2.resourceserver.jwt.issuer-uri}. */
	public String issuerUri() {
		return this.issuer;
	}

	/** A token from the token endpoint, for every scope of the client (the grant gives none that are not asked). */
	public String token(String clientId) {
		String basic = Base64.getEncoder()
			.encodeToString((clientId + ":secret-" + clientId).getBytes(StandardCharsets.UTF_8));
		HttpRequest request = HttpRequest.newBuilder(URI.create(this.issuer + "/oauth2/token"))
			.header("Authorization", "Basic " + basic)
			.header("Content-Type", "application/x-www-form-urlencoded")
			.POST(HttpRequest.BodyPublishers.ofString("grant_type=client_credentials&scope="
					+ String.join("%20", this.clients.get(clientId))))
			.build();
		try {
			HttpResponse<String> response = this.http.send(request, HttpResponse.BodyHandlers.ofString());
			if (response.statusCode() != 200) {
				throw new IllegalStateException("token endpoint answered " + response.statusCode() + ": " + response.body());
			}
			return JSON.readTree(response.body()).get("access_token").asString();
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	/** A token signed with this issuer's own key that expired {@code ago} seconds ago. */
	@SuppressWarnings("unchecked")
	public String expiredToken(String subject, String scope, long ago) {
		NimbusJwtEncoder encoder = new NimbusJwtEncoder(this.context.getBean(JWKSource.class));
		Instant expiry = Instant.now().minusSeconds(ago);
		JwtClaimsSet claims = JwtClaimsSet.builder()
			.issuer(this.issuer)
			.subject(subject)
			.issuedAt(expiry.minusSeconds(300))
			.expiresAt(expiry)
			.claim("scope", List.of(scope))
			.build();
		return encoder.encode(JwtEncoderParameters.from(JwsHeader.with(() -> "RS256").build(), claims)).getTokenValue();
	}

	@Override
	public void close() {
		this.context.close();
	}

}
