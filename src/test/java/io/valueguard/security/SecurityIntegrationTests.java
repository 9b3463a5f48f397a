package io.valueguard.security;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.valueguard.ValueGuardApplication;
import io.valueguard.claims.ClaimHeaders;
import io.valueguard.support.ApiClient;
import io.valueguard.support.FreePorts;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.TestIssuer;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Three instances with security on, against a real authorization server in this JVM: bearer tokens from its token
 * endpoint (client credentials, {@code sub} the client id, {@code key-claim=sub}), HTTP Basic users beside them, the
 * instances signing their requests to each other, actuator on a port of its own. What a token allows works across
 * instances; everything else is refused as a problem body, and nothing refused reaches the claims topic.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 6, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
class SecurityIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final String SECRET = "integration-internal-secret-0123456789";

	private static final String OPS_PASSWORD = "correct horse battery staple";

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final List<ApiClient> anonymous = new ArrayList<>();

	private static final List<Integer> apiPorts = new ArrayList<>();

	private static final List<ApiClient> management = new ArrayList<>();

	private static TestIssuer issuer;

	private static String bootstrapServers;

	@TempDir
	static Path state;

	@BeforeAll
	static void startIssuerAndThreeInstances(EmbeddedKafkaBroker broker) {
		bootstrapServers = broker.getBrokersAsString();
		issuer = TestIssuer.start(Map.of("reader", Set.of("valueguard.read"), "alice",
				Set.of("valueguard.read", "valueguard.write"), "bob", Set.of("valueguard.read", "valueguard.write"),
				"admin", Set.of("valueguard.admin")));
		String opsHash = new BCryptPasswordEncoder(4).encode(OPS_PASSWORD);
		for (int i = 0; i < 3; i++) {
			int port = FreePorts.next();
			int managementPort = FreePorts.next();
			List<String> args = List.of("--server.port=" + port, "--management.server.port=" + managementPort,
					"--spring.kafka.bootstrap-servers=" + bootstrapServers, "--valueguard.embedded-kafka.enabled=false",
					"--valueguard.topics.partitions=6", "--valueguard.state-dir=" + state.resolve("instance-" + i),
					"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=50",
					"--spring.security.oauth2.resourceserver.jwt.issuer-uri=" + issuer.issuerUri(),
					"--valueguard.security.require-authentication=true", "--valueguard.security.key-claim=sub",
					"--valueguard.security.internal-secret=" + SECRET, "--valueguard.security.users[0].name=ops",
					"--valueguard.security.users[0].password=" + opsHash,
					"--valueguard.security.users[0].roles=read,write", "--valueguard.limits.max-request-bytes=2KB");
			instances.add(new SpringApplicationBuilder(ValueGuardApplication.class).run(args.toArray(String[]::new)));
			anonymous.add(new ApiClient(port));
			apiPorts.add(port);
			management.add(new ApiClient(managementPort));
		}
		for (ApiClient probe : management) {
			await("instance ready").atMost(PATIENCE)
				.until(() -> probe.get("/actuator/health/readiness").status() == 200);
		}
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
		if (issuer != null) {
			issuer.close();
		}
	}

	private static ApiClient as(int instance, String client) {
		return anonymous.get(instance).withAuthorization("Bearer " + issuer.token(client));
	}

	@Test
	void shouldServeEveryKindOfRequestAcrossInstancesWithReadOrWriteTokens() {
		ApiClient alice = as(0, "alice");
		ApiClient.Reply ruling = alice.claim("alice", "alice@example.com", "10s");
		assertThat(ruling.status()).as(ruling.body()).isEqualTo(200);
		assertThat(ruling.json().get("outcome").asString()).isEqualTo("BOUND");
		assertThat(as(1, "bob").claim("bob", "bob@example.com").status()).isEqualTo(202);

		for (int i = 0; i < 3; i++) {
			ApiClient reader = as(i, "reader");
			await("both bindings through instance " + i).atMost(PATIENCE).untilAsserted(() -> {
				assertThat(reader.binding("alice").status()).isEqualTo(200);
				assertThat(reader.binding("bob").status()).isEqualTo(200);
			});
			// every instance answers through the others: single lookups, listings, batches, reports
			assertThat(reader.owner("alice@example.com").json().get("key").asString()).isEqualTo("alice");
			ApiClient.Reply listing = reader.get("/api/bindings?limit=10");
			assertThat(listing.status()).as(listing.body()).isEqualTo(200);
			List<String> listed = new ArrayList<>();
			listing.json().get("items").forEach((item) -> listed.add(item.get("key").asString()));
			assertThat(listed).contains("alice", "bob");
			ApiClient.Reply batch = reader.postJson("/api/owners/lookup", "[\"alice@example.com\",\"bob@example.com\"]");
			assertThat(batch.status()).as(batch.body()).isEqualTo(200);
			assertThat(batch.json().get("bob@example.com").get("key").asString()).isEqualTo("bob");
			assertThat(reader.get("/api/claims/alice").status()).isEqualTo(200);
			ApiClient.Reply reports = reader.get("/api/instances");
			assertThat(reports.status()).isEqualTo(200);
			assertThat(reports.json()).hasSize(3);
			reports.json().forEach((report) -> assertThat(report.get("reachable").asBoolean()).isTrue());
		}
		ApiClient.Reply released = as(2, "bob").release("bob", "10s");
		assertThat(released.status()).as(released.body()).isEqualTo(200);
	}

	@Test
	void shouldTakeHttpBasicForItsOwnKeyAndRefuseAWrongPassword() {
		String good = "Basic " + Base64.getEncoder().encodeToString(("ops:" + OPS_PASSWORD).getBytes(StandardCharsets.UTF_8));
		String bad = "Basic " + Base64.getEncoder().encodeToString("ops:guess".getBytes(StandardCharsets.UTF_8));

		assertThat(anonymous.get(1).withAuthorization(good).claim("ops", "ops@example.com").status()).isEqualTo(202);
		assertThat(anonymous.get(1).withAuthorization(good).claim("alice", "stolen@example.com").status())
			.isEqualTo(403);
		assertProblem(anonymous.get(1).withAuthorization(bad).claim("ops", "ops-2@example.com"), 401,
				"The credentials were refused");
	}

	@Test
	void shouldNameWhoWroteEachClaimOnTheClaimsTopic() {
		String ops = "Basic " + Base64.getEncoder().encodeToString(("ops:" + OPS_PASSWORD).getBytes(StandardCharsets.UTF_8));
		assertThat(as(0, "alice").claim("alice", "audit-alice@example.com").status()).isEqualTo(202);
		assertThat(anonymous.get(1).withAuthorization(ops).claim("ops", "audit-ops@example.com").status()).isEqualTo(202);
		// an administrator may write any key, and is named for it
		assertThat(as(2, "admin").claim("carol", "audit-carol@example.com").status()).isEqualTo(202);
		assertThat(as(2, "admin").release("carol").status()).isEqualTo(202);

		List<String> written = new KafkaProbe(bootstrapServers).readAll("valueguard.claims")
			.stream()
			.filter((record) -> record.headers().lastHeader(ClaimHeaders.PRINCIPAL) != null)
			.map((record) -> text(record.key()) + " " + text(record.value()) + " by "
					+ text(record.headers().lastHeader(ClaimHeaders.PRINCIPAL).value()))
			.toList();
		assertThat(written).contains("alice audit-alice@example.com by alice", "ops audit-ops@example.com by ops",
				"carol audit-carol@example.com by admin", "carol null by admin");
	}

	private static String text(byte @Nullable [] bytes) {
		return (bytes != null) ? new String(bytes, StandardCharsets.UTF_8) : "null";
	}

	@Test
	void shouldRefuseWhatTheCredentialsDoNotAllowWithProblemBodiesAndProduceNothing() throws Exception {
		ApiClient api = anonymous.get(0);
		ApiClient.Reply noToken = api.claim("mallory", "alice@example.com");
		assertProblem(noToken, 401, "needs credentials");
		assertThat(noToken.headers().allValues("WWW-Authenticate")).anyMatch((h) -> h.startsWith("Bearer"))
			.anyMatch((h) -> h.startsWith("Basic"));
		assertProblem(api.withAuthorization("Bearer " + issuer.expiredToken("mallory", "valueguard.write", 3600))
			.claim("mallory", "alice@example.com"), 401, "expired");
		assertProblem(api.withAuthorization("Bearer " + foreignKeyToken("mallory")).claim("mallory", "alice@example.com"),
				401, "The bearer token was refused");
		assertProblem(api.withAuthorization("Bearer " + unsignedToken("mallory")).claim("mallory", "alice@example.com"),
				401, "The bearer token was refused");
		assertProblem(as(0, "reader").claim("reader", "alice@example.com"), 403, "SCOPE_valueguard.write");
		assertProblem(as(0, "bob").claim("alice", "bob-takes@example.com"), 403, "only the key 'bob', not 'alice'");
		assertProblem(as(0, "bob").release("alice"), 403, "only the key 'bob'");
		assertProblem(as(0, "bob").put("/api/bindings/bob", new byte[3_000]), 413, "larger than 2048 bytes");
		// the marker older builds forwarded with earns a client nothing
		assertProblem(api.get("/api/bindings/alice", "X-ValueGuard-Forwarded", "localhost:1"), 401, "needs credentials");

		assertThat(new KafkaProbe(bootstrapServers).readAll("valueguard.claims"))
			.as("nothing refused reached the claims topic")
			.noneMatch((record) -> record.key() != null && Set.of("mallory", "reader")
				.contains(new String(record.key(), StandardCharsets.UTF_8)))
			.noneMatch((record) -> record.value() != null
					&& new String(record.value(), StandardCharsets.UTF_8).equals("bob-takes@example.com"));
	}

	@Test
	void shouldRefuseInstanceCallsWithoutAValidRecentSignature() {
		ApiClient api = anonymous.get(0);
		assertProblem(api.get("/internal/lookup/bindings?key=alice"), 401, "needs the X-ValueGuard-Signature header");
		assertProblem(api.get("/internal/instance"), 401, "needs the X-ValueGuard-Signature header");
		long old = Instant.now().minusSeconds(60).toEpochMilli();
		assertProblem(api.get("/internal/lookup/bindings?key=alice", "X-ValueGuard-Signature", "t=" + old + ",s=x"),
				401, "away from this instance's clock");
		assertProblem(api.get("/internal/lookup/bindings?key=alice", "X-ValueGuard-Signature",
				"t=" + System.currentTimeMillis() + ",s=forged"), 401, "does not match");
		// a token for the API is no credential between instances
		assertProblem(as(0, "admin").get("/internal/lookup/bindings?key=alice"), 401, "X-ValueGuard-Signature");
	}

	@Test
	void shouldKeepActuatorOffTheApiPortAndHealthDetailsForAdmins() {
		assertThat(anonymous.get(0).get("/actuator/health").status()).isEqualTo(404);
		assertThat(anonymous.get(0).get("/actuator/prometheus").status()).isEqualTo(404);
		ApiClient.Reply health = management.get(0).get("/actuator/health");
		assertThat(health.status()).isEqualTo(200);
		assertThat(health.json().has("components")).as("no details without credentials").isFalse();
		// Actuator asks the request (isUserInRole) whether the caller holds the admin authority
		ApiClient.Reply forAdmin = management.get(0).withAuthorization("Bearer " + issuer.token("admin"))
			.get("/actuator/health");
		assertThat(forAdmin.json().has("components")).as("details for an admin token").isTrue();
		ApiClient.Reply forReader = management.get(0).withAuthorization("Bearer " + issuer.token("reader"))
			.get("/actuator/health");
		assertThat(forReader.json().has("components")).as("no details for a read token").isFalse();
		assertThat(management.get(0).get("/actuator/prometheus").status()).isEqualTo(200);
	}

	@Test
	void shouldLetAnyoneReadTheApiDocumentation() {
		assertThat(anonymous.get(0).get("/v3/api-docs").status()).isEqualTo(200);
	}

	/** A token for the right issuer, signed by a key the issuer never published. */
	private static String foreignKeyToken(String subject) throws Exception {
		RSAKey key = new RSAKeyGenerator(2048).keyID("not-the-issuers").generate();
		SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(key.getKeyID()).build(),
				claims(subject));
		jwt.sign(new RSASSASigner(key));
		return jwt.serialize();
	}

	/** A token that says it needs no signature ({@code alg: none}). */
	private static String unsignedToken(String subject) {
		Base64.Encoder base64 = Base64.getUrlEncoder().withoutPadding();
		String header = base64.encodeToString("{\"alg\":\"none\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.UTF_8));
		String payload = base64.encodeToString(claims(subject).toString().getBytes(StandardCharsets.UTF_8));
		return header + "." + payload + ".";
	}

	private static JWTClaimsSet claims(String subject) {
		Instant now = Instant.now();
		return new JWTClaimsSet.Builder().issuer(issuer.issuerUri())
			.subject(subject)
			.issueTime(Date.from(now))
			.expirationTime(Date.from(now.plusSeconds(300)))
			.claim("scope", "valueguard.write valueguard.admin")
			.build();
	}

	private static void assertProblem(ApiClient.Reply reply, int status, String detail) {
		assertThat(reply.status()).as(reply.body()).isEqualTo(status);
		assertThat(reply.contentType()).startsWith("application/problem+json");
		assertThat(reply.json().get("status").asInt()).isEqualTo(status);
		assertThat(reply.json().get("detail").asString()).contains(detail);
		assertThat(reply.body()).doesNotContain("Exception").doesNotContain("<html");
	}

}
