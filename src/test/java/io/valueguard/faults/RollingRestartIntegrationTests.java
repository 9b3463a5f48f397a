package io.valueguard.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.valueguard.support.BrokerProcess;
import io.valueguard.support.InstanceProcess;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/**
 * A rolling restart of a 3-broker cluster under load, as an operator upgrades Kafka: each broker in turn is stopped
 * (SIGTERM), started again, and given time to catch up before the next. Topics have three replicas and
 * {@code min.insync.replicas=2}, so the cluster takes writes throughout. No streams client may reach ERROR, no
 * answer may be a 500, and the final state must be the reference model's. Tagged {@code long}: it takes minutes of
 * broker restarts, so it runs with the long fault suite ({@code scripts/fault-suite.sh}), not on every build.
 */
@Tag("integration")
@Tag("long")
class RollingRestartIntegrationTests {

	private static final int PARTITIONS = 6;

	private static final int VALUES = 300;

	private final Path work = Path.of("target", "fault-suite",
			"rolling-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));

	private BrokerProcess cluster;

	private List<InstanceProcess> instances = List.of();

	@BeforeAll
	static void quietClients() {
		Instances.quietKafkaClients();
	}

	@AfterEach
	void stopAll() {
		this.instances.forEach(InstanceProcess::close);
		if (this.cluster != null) {
			this.cluster.close();
		}
	}

	@Test
	void shouldRideOutRollingRestartOfThreeBrokersUnderLoad() throws Exception {
		Files.createDirectories(this.work);
		long seed = System.nanoTime();
		String reproduce = "seed " + seed + ", logs in " + this.work.toAbsolutePath();
		this.cluster = new BrokerProcess(this.work, 3).start();
		this.instances = Instances.create(List.of("vg-a", "vg-b"), this.work, this.cluster.bootstrapServers(),
				List.of("--valueguard.topics.partitions=" + PARTITIONS, "--valueguard.topics.replication-factor=3",
						"--valueguard.topics.min-insync-replicas=2"));
		Instances.start(this.instances);

		LookupProbe probe;
		try (ClaimStream stream = new ClaimStream(this.cluster.bootstrapServers(), "valueguard.claims", seed, 1_000,
				VALUES, 100).start()) {
			probe = new LookupProbe(this.instances, Instances.onePerPartition("probe-key-", PARTITIONS),
					Instances.onePerPartition("probe-value-", PARTITIONS), VALUES).start();
			try (Admin admin = Admin.create(
					Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, this.cluster.bootstrapServers()))) {
				for (BrokerProcess.Node node : this.cluster.nodes()) {
					System.out.println("Rolling restart: broker " + node.id());
					this.cluster.stop(node);
					await().pollDelay(Duration.ofSeconds(2)).until(() -> true);
					this.cluster.start(node);
					awaitFullyReplicated(admin);
					Instances.awaitReady(this.instances);
				}
			}
			await().pollDelay(Duration.ofSeconds(5)).until(() -> true);
			probe.close();
		}
		new FinalStateCheck(this.cluster.bootstrapServers(), this.instances, reproduce).verify(1_000, probe.answers());
	}

	/** Every partition of the claims and bindings topics has all three replicas in sync again. */
	private static void awaitFullyReplicated(Admin admin) {
		await("every replica back in sync").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofSeconds(1))
			.until(() -> {
				Map<String, TopicDescription> topics = admin
					.describeTopics(Set.of("valueguard.claims", "valueguard.bindings"))
					.allTopicNames()
					.get();
				return topics.values()
					.stream()
					.flatMap((topic) -> topic.partitions().stream())
					.allMatch((partition) -> partition.isr().size() == 3);
			});
	}

}
