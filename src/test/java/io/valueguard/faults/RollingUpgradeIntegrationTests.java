package io.valueguard.faults;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.valueguard.support.BrokerProcess;
import io.valueguard.support.ChildJvm;
import io.valueguard.support.InstanceProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A rolling upgrade under load, as {@code helm upgrade} rolls a StatefulSet, and the rollback after it: three
 * instances of an earlier build ({@code -Dvalueguard.upgrade.from-jar}, which {@code scripts/upgrade-check.sh} builds
 * from a commit) claim and answer lookups, then each in turn, the highest ordinal first, is stopped (SIGTERM) and
 * started on the same state directory from this build's jar, and the next waits until every instance is ready again;
 * the rollback starts on this build and rolls to the earlier one. Between the steps the two builds run side by side:
 * one group, records and store entries written by either, lookups forwarded from one to the other. The final state
 * must be the reference model's, no answer a 500, no streams client in ERROR. Without the property both are skipped:
 * a clean clone has no earlier build to start.
 */
@Tag("integration")
class RollingUpgradeIntegrationTests {

	private static final String FROM_JAR = System.getProperty("valueguard.upgrade.from-jar", "");

	/** {@code -Dvalueguard.upgrade.policy=first-wins} rolls a fleet of sign-ups instead. */
	private static final String POLICY = System.getProperty("valueguard.upgrade.policy", "latest-wins");

	private static final int PARTITIONS = 6;

	private static final int KEYS = 1_000;

	private static final int VALUES = 300;

	/** How long the fleet runs between two steps of the roll, both builds side by side. */
	private static final Duration MIXED = Duration.ofSeconds(15);

	private BrokerProcess broker;

	private List<InstanceProcess> instances = List.of();

	@BeforeAll
	static void quietClients() {
		Instances.quietKafkaClients();
	}

	@AfterEach
	void stopAll() {
		this.instances.forEach(InstanceProcess::close);
		if (this.broker != null) {
			this.broker.close();
		}
	}

	@Test
	void shouldRollFromAnEarlierBuildUnderLoad() throws Exception {
		File earlier = earlierBuild();
		roll(earlier, ChildJvm.applicationJar(), "upgrade");
	}

	/** What {@code helm rollback} does after an upgrade: this build's instances rolled back to the earlier one's. */
	@Test
	void shouldRollBackToTheEarlierBuildUnderLoad() throws Exception {
		File earlier = earlierBuild();
		roll(ChildJvm.applicationJar(), earlier, "rollback");
	}

	private static File earlierBuild() {
		assumeTrue(!FROM_JAR.isBlank(),
				"no earlier build given: scripts/upgrade-check.sh <commit> builds one and runs this");
		File earlier = new File(FROM_JAR);
		assertThat(earlier).as("-Dvalueguard.upgrade.from-jar").isFile();
		return earlier;
	}

	/**
	 * Starts three instances of the build {@code from} under load, restarts each in turn from {@code to}, and checks
	 * the final state.
	 */
	private void roll(File from, File to, String kind) throws Exception {
		Path work = Path.of("target", "fault-suite",
				"roll-" + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-" + kind);
		Files.createDirectories(work);
		long seed = System.nanoTime();
		String reproduce = kind + " under " + POLICY + " from " + from + " to " + to + ", seed " + seed + ", logs in "
				+ work.toAbsolutePath();
		this.broker = new BrokerProcess(work).start();
		this.instances = Instances.create(List.of("vg-0", "vg-1", "vg-2"), work, this.broker.bootstrapServers(),
				List.of("--valueguard.topics.partitions=" + PARTITIONS, "--valueguard.policy=" + POLICY));
		this.instances.forEach((instance) -> instance.jar(from));
		Instances.start(this.instances);

		LookupProbe probe;
		try (ClaimStream stream = new ClaimStream(this.broker.bootstrapServers(), "valueguard.claims", seed, KEYS,
				VALUES, 100).start()) {
			probe = new LookupProbe(this.instances, Instances.onePerPartition("probe-key-", PARTITIONS),
					Instances.onePerPartition("probe-value-", PARTITIONS), VALUES).start();
			pause(MIXED);
			// a StatefulSet rolls from its highest ordinal down
			List<InstanceProcess> roll = new ArrayList<>(this.instances);
			Collections.reverse(roll);
			for (InstanceProcess instance : roll) {
				System.out.println("Rolling " + kind + ": " + instance.name() + " (" + reproduce + ")");
				instance.stop();
				instance.jar(to).start();
				Instances.awaitReady(this.instances);
				pause(MIXED);
			}
			probe.close();
		}
		FinalStateCheck check = new FinalStateCheck(this.broker.bootstrapServers(), this.instances, reproduce);
		if (POLICY.equals("first-wins")) {
			check.verifyFirstWins(KEYS, probe.answers());
		}
		else {
			check.verify(KEYS, probe.answers());
		}
		assertThat(probe.answers()).as("lookups and claims answered during the roll").isNotEmpty();
	}

	private static void pause(Duration duration) {
		await().pollDelay(duration).atMost(duration.plusSeconds(1)).until(() -> true);
	}

}
