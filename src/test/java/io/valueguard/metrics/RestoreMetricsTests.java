package io.valueguard.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;

/** Restore progress as meters while it runs, and one log line per restored partition when it ends. */
@ExtendWith(OutputCaptureExtension.class)
class RestoreMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final RestoreMetrics restores = new RestoreMetrics(this.registry);

	private final TopicPartition changelog = new TopicPartition("valueguard-keys-bindings-changelog", 3);

	@Test
	void shouldCountRestoredAndRemainingRecords() {
		this.restores.onRestoreStart(this.changelog, "bindings", 0, 1_000);
		this.restores.onBatchRestored(this.changelog, "bindings", 400, 400);

		assertThat(this.registry.get("valueguard.restore.records.restored").tag("store", "bindings").counter().count())
			.isEqualTo(400);
		assertThat(this.registry.get("valueguard.restore.records.remaining").tag("store", "bindings").gauge().value())
			.isEqualTo(600);
		assertThat(this.registry.get("valueguard.restore.partitions").tag("store", "bindings").gauge().value())
			.isEqualTo(1);
	}

	@Test
	void shouldCountEachSmallStoreUnderItsOwnName() {
		TopicPartition marks = new TopicPartition("valueguard-values-owners-applied-offsets-changelog", 1);
		this.restores.onRestoreStart(marks, "owners-applied-offsets", 0, 12);
		this.restores.onBatchRestored(marks, "owners-applied-offsets", 12, 12);
		this.restores.onRestoreEnd(marks, "owners-applied-offsets", 12);
		this.restores.onBatchLoaded(new TopicPartition("valueguard-values-erasures-changelog", 1), "erasures",
				null, 3, 3, 3);

		assertThat(this.registry.get("valueguard.restore.records.restored")
			.tag("store", "owners-applied-offsets")
			.counter()
			.count()).isEqualTo(12);
		assertThat(this.registry.get("valueguard.restore.duration")
			.tag("store", "owners-applied-offsets")
			.timer()
			.count()).isEqualTo(1);
		assertThat(this.registry.get("valueguard.standby.records.updated").tag("store", "erasures").counter().count())
			.isEqualTo(3);
		assertThat(this.registry.get("valueguard.restore.records.restored").tag("store", "bindings").counter().count())
			.isZero();
		assertThat(this.registry.get("valueguard.standby.records.updated").tag("store", "bindings").counter().count())
			.isZero();
	}

	@Test
	void shouldLogEachRestoredPartitionOnceItEnds(CapturedOutput output) {
		this.restores.onRestoreStart(this.changelog, "bindings", 0, 1_000);
		this.restores.onBatchRestored(this.changelog, "bindings", 1_000, 1_000);
		this.restores.onRestoreEnd(this.changelog, "bindings", 1_000);

		assertThat(output).containsPattern(
				"Restored 1000 records into store bindings from valueguard-keys-bindings-changelog-3 in \\d+ ms");
		assertThat(this.registry.get("valueguard.restore.duration").tag("store", "bindings").timer().count())
			.isEqualTo(1);
		assertThat(this.registry.get("valueguard.restore.records.remaining").tag("store", "bindings").gauge().value())
			.isZero();
	}

	@Test
	void shouldNotLogPartitionsThatHadNothingToRestore(CapturedOutput output) {
		this.restores.onRestoreStart(this.changelog, "bindings", 1_000, 1_000);
		this.restores.onRestoreEnd(this.changelog, "bindings", 0);

		assertThat(output).doesNotContain("Restored");
	}

}
