package io.valueguard.kafka;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.valueguard.support.ApiClient;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import io.valueguard.support.EmbeddedBrokers;
import io.valueguard.support.ServiceInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * An instance whose state directory was filled from one Kafka cluster, started against another (a laptop's state
 * meeting the team's cluster, a cluster rebuilt or migrated under persistent volumes), must not mix the two: Kafka
 * Streams restores each store from its checkpointed offset, and notices nothing wrong as long as the other cluster's
 * changelog reaches past that offset. The stores would keep entries the cluster never had and miss the ones before
 * the offset.
 */
@Tag("integration")
class LocalStateOriginIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final String ID = "origin";

	private static final Set<String> TEAM_KEYS = IntStream.range(0, 10)
		.mapToObj((i) -> "member-" + i)
		.collect(Collectors.toSet());

	private static final Map<String, String> TEAM_BINDINGS = TEAM_KEYS.stream()
		.collect(Collectors.toMap(Function.identity(), (key) -> key + "@example.com"));

	@TempDir
	Path work;

	private final EmbeddedKafkaKraftBroker laptop = EmbeddedBrokers.exactlyOnce();

	private final EmbeddedKafkaKraftBroker team = EmbeddedBrokers.exactlyOnce();

	@AfterEach
	void stopBrokers() {
		this.laptop.destroy();
		this.team.destroy();
	}

	@Test
	void shouldRebuildStateFilledFromAnotherClusterFromThisClustersChangelogs() {
		Path state = this.work.resolve("state");
		// the team's cluster already runs ValueGuard: its changelogs reach past anything one laptop claim wrote
		try (ServiceInstance member = start(this.team, this.work.resolve("member-state"))) {
			TEAM_BINDINGS.forEach((key, value) -> member.api().claim(key, value));
			await("the team's claims bound").atMost(PATIENCE)
				.until(() -> member.api().boundValues(TEAM_KEYS).equals(TEAM_BINDINGS));
		}
		try (ServiceInstance onLaptop = start(this.laptop, state)) {
			onLaptop.api().claim("alice", "+1-555-0100");
			await("alice bound on the laptop").atMost(PATIENCE)
				.until(() -> onLaptop.api().binding("alice").status() == 200);
		}

		try (ServiceInstance moved = start(this.team, state)) {
			ApiClient api = moved.api();
			await("the team's state, and only the team's").atMost(PATIENCE).untilAsserted(() -> {
				assertThat(api.boundValues(TEAM_KEYS)).isEqualTo(TEAM_BINDINGS);
				assertThat(api.binding("alice").status()).as("the laptop's alice").isEqualTo(404);
				assertThat(api.owner("+1-555-0100").status()).as("the laptop's value").isEqualTo(404);
			});
		}
	}

	/**
	 * The stages' changelog topics deleted (an operator starting the state over, or Kafka's application reset tool)
	 * while this instance was away, and filled again by another instance past the offsets this one checkpointed:
	 * Kafka Streams would restore this instance's stores from those offsets of the new topics, keeping the entries
	 * the deleted topics held and missing the new topics' first ones.
	 */
	@Test
	void shouldRebuildStateRestoredFromChangelogsSinceCreatedAgain() throws Exception {
		Path state = this.work.resolve("state");
		Map<String, String> forgotten = bindings("forgotten-", 6);
		try (ServiceInstance before = start(this.team, state)) {
			forgotten.forEach((key, value) -> before.api().claim(key, value));
			// the value stage too, so that nothing of theirs is still in flight between the stages when the
			// changelogs go: a command applied after the deletion would rightly be in the new changelogs
			await("the claims before the changelogs were deleted bound, at both stages").atMost(PATIENCE)
				.until(() -> before.api().boundValues(forgotten.keySet()).equals(forgotten)
						&& before.api().owners(Set.copyOf(forgotten.values())).size() == forgotten.size());
		}
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.team.getBrokersAsString()))) {
			Set<String> changelogs = admin.listTopics()
				.names()
				.get()
				.stream()
				.filter((topic) -> topic.startsWith(ID + "-") && topic.endsWith("-changelog"))
				.collect(Collectors.toSet());
			assertThat(changelogs).isNotEmpty();
			admin.deleteTopics(changelogs).all().get();
			await("the changelogs deleted").atMost(PATIENCE)
				.until(() -> admin.listTopics().names().get().stream().noneMatch(changelogs::contains));
		}
		// another instance starts the state over, and writes more than this one wrote before
		Map<String, String> after = bindings("after-", 30);
		try (ServiceInstance other = start(this.team, this.work.resolve("other-state"))) {
			after.forEach((key, value) -> other.api().claim(key, value));
			await("the claims after the changelogs were created again bound").atMost(PATIENCE)
				.until(() -> other.api().boundValues(after.keySet()).equals(after));
		}

		try (ServiceInstance back = start(this.team, state)) {
			ApiClient api = back.api();
			await("the new changelogs' state, and only theirs").atMost(PATIENCE).untilAsserted(() -> {
				assertThat(api.boundValues(after.keySet())).isEqualTo(after);
				assertThat(api.boundValues(forgotten.keySet())).as("keys of the deleted changelogs").isEmpty();
				assertThat(api.owners(Set.copyOf(forgotten.values()))).as("values of the deleted changelogs").isEmpty();
			});
		}
	}

	private static Map<String, String> bindings(String prefix, int count) {
		return IntStream.range(0, count)
			.mapToObj((i) -> prefix + i)
			.collect(Collectors.toMap(Function.identity(), (key) -> key + "@example.com"));
	}

	private ServiceInstance start(EmbeddedKafkaKraftBroker broker, Path state) {
		return ServiceInstance.start(ID, broker.getBrokersAsString(), state, PATIENCE);
	}

}
