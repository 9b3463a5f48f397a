package io.valueguard.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.valueguard.ValueGuardApplication;
import io.valueguard.support.ApiClient;
import io.valueguard.support.FreePorts;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.SecuredKafkaBroker;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static io.valueguard.support.SecuredKafkaBroker.allow;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * ValueGuard against a broker that enforces ACLs ({@code SASL_SSL}, SCRAM-SHA-512, {@code StandardAuthorizer},
 * nothing allowed without an ACL), with exactly the ACLs docs/security.md lists for its principal: claims, evictions,
 * lookups, a restart and exactly-once work; with one ACL taken away, it fails within 30 s naming what Kafka refused.
 */
@Tag("integration")
class KafkaSecurityIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static SecuredKafkaBroker broker;

	@TempDir
	static Path work;

	@BeforeAll
	static void startSecuredBroker() throws Exception {
		broker = SecuredKafkaBroker.start(work);
	}

	@AfterAll
	static void stopBroker() {
		if (broker != null) {
			broker.close();
		}
	}

	/** The ACLs docs/security.md lists, for an application id and its topics named after it. */
	static List<AclBinding> documentedAcls(String user, String id) {
		List<AclBinding> acls = new ArrayList<>();
		for (AclOperation operation : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE,
				AclOperation.DESCRIBE_CONFIGS, AclOperation.CREATE)) {
			acls.add(allow(user, ResourceType.TOPIC, id + ".claims", PatternType.LITERAL, operation));
		}
		for (String output : List.of(id + ".bindings", id + ".evictions", id + ".claims.dlq")) {
			for (AclOperation operation : List.of(AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE)) {
				acls.add(allow(user, ResourceType.TOPIC, output, PatternType.LITERAL, operation));
			}
		}
		for (AclOperation operation : List.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE,
				AclOperation.DESCRIBE_CONFIGS, AclOperation.CREATE, AclOperation.DELETE)) {
			acls.add(allow(user, ResourceType.TOPIC, id + "-", PatternType.PREFIXED, operation));
		}
		acls.add(allow(user, ResourceType.GROUP, id + "-", PatternType.PREFIXED, AclOperation.READ));
		acls.add(allow(user, ResourceType.GROUP, id + "-", PatternType.PREFIXED, AclOperation.DESCRIBE));
		acls.add(allow(user, ResourceType.TRANSACTIONAL_ID, id + "-", PatternType.PREFIXED, AclOperation.WRITE));
		acls.add(allow(user, ResourceType.TRANSACTIONAL_ID, id + "-", PatternType.PREFIXED, AclOperation.DESCRIBE));
		return acls;
	}

	private static ConfigurableApplicationContext instance(String user, String id, int port, Path state) {
		List<String> args = new ArrayList<>(List.of("--server.port=" + port,
				"--spring.kafka.bootstrap-servers=" + broker.bootstrapServers(), "--valueguard.embedded-kafka.enabled=false",
				"--valueguard.application-id=" + id, "--valueguard.topics.claims=" + id + ".claims",
				"--valueguard.topics.bindings=" + id + ".bindings", "--valueguard.topics.evictions=" + id + ".evictions",
				"--valueguard.topics.dlq=" + id + ".claims.dlq", "--valueguard.topics.partitions=3",
				"--valueguard.state-dir=" + state,
				"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=50"));
		// as the Helm chart renders kafka.sasl and kafka.tls: for the REST producer and admin, and for both stages
		broker.clientProperties(user, user + "-password").forEach((name, value) -> {
			args.add("--spring.kafka.properties." + name + "=" + value);
			args.add("--spring.cloud.stream.kafka.streams.binder.configuration." + name + "=" + value);
		});
		return new SpringApplicationBuilder(ValueGuardApplication.class).run(args.toArray(String[]::new));
	}

	@Test
	void shouldClaimEvictLookUpRestartAndKeepExactlyOnceWithOnlyTheDocumentedAcls() throws Exception {
		broker.createUser("valueguard", "valueguard-password");
		broker.grant(documentedAcls("valueguard", "vg"));
		Path state = work.resolve("state-vg");
		int port = FreePorts.next();
		ApiClient api = new ApiClient(port);
		ConfigurableApplicationContext instance = instance("valueguard", "vg", port, state);
		try {
			await("ready").atMost(PATIENCE).until(() -> api.get("/actuator/health/readiness").status() == 200);
			assertThat(api.claim("alice", "+1-555-0100", "10s").json().get("outcome").asString()).isEqualTo("BOUND");
			assertThat(api.claim("bob", "+1-555-0100", "10s").json().get("outcome").asString()).isEqualTo("BOUND");
			await("alice evicted").atMost(PATIENCE).until(() -> api.binding("alice").status() == 404);
			assertThat(api.owner("+1-555-0100").json().get("key").asString()).isEqualTo("bob");
		}
		finally {
			instance.close();
		}

		instance = instance("valueguard", "vg", port, state);
		try {
			await("ready after a restart").atMost(PATIENCE)
				.until(() -> api.get("/actuator/health/readiness").status() == 200);
			assertThat(api.binding("bob").json().get("value").asString()).isEqualTo("+1-555-0100");
			assertThat(api.claim("carol", "+1-555-0100", "10s").json().get("outcome").asString()).isEqualTo("BOUND");
			await("bob evicted").atMost(PATIENCE).until(() -> api.binding("bob").status() == 404);
		}
		finally {
			instance.close();
		}

		try (KafkaProbe probe = new KafkaProbe(broker.adminBootstrapServers())) {
			assertThat(probe.table("vg.bindings", Set.of("alice", "bob", "carol")))
				.as("exactly-once: the compacted bindings read committed end with carol alone")
				.isEqualTo(Map.of("carol", "+1-555-0100"));
			assertThat(probe.readAll("vg.evictions")).extracting((record) -> new String(record.key(), StandardCharsets.UTF_8))
				.as("one eviction each, no duplicates from the restart")
				.containsExactly("alice", "bob");
			assertThat(probe.hasOpenTransaction("vg.bindings")).isFalse();
		}
	}

	@Test
	void shouldFailWithinThirtySecondsNamingWhatKafkaRefusedWhenAnAclIsMissing() throws Exception {
		broker.createUser("limited", "limited-password");
		List<AclBinding> acls = documentedAcls("limited", "limited");
		AclBinding missing = allow("limited", ResourceType.GROUP, "limited-", PatternType.PREFIXED, AclOperation.READ);
		acls.remove(missing);
		broker.grant(acls);
		int port = FreePorts.next();
		ConfigurableApplicationContext instance = instance("limited", "limited", port, work.resolve("state-limited"));
		try {
			StreamsSupervisor supervisor = instance.getBean(StreamsSupervisor.class);
			long started = System.nanoTime();
			await("the stream fails naming the group").atMost(Duration.ofSeconds(30))
				.until(() -> supervisor.gaveUp("limited-keys") || supervisor.gaveUp("limited-values"));
			String stage = supervisor.gaveUp("limited-keys") ? "limited-keys" : "limited-values";
			assertThat(supervisor.refusal(stage)).contains("GroupAuthorizationException").contains(stage);
			assertThat(new ApiClient(port).get("/actuator/health/liveness").status())
				.as("liveness DOWN at once, no restart loop")
				.isEqualTo(503);
			assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(30));
		}
		finally {
			instance.close();
		}
	}

}
