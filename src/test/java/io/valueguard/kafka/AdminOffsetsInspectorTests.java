package io.valueguard.kafka;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Which open transactions could hold a stage's committed offsets back: those of its own Kafka Streams producers. */
class AdminOffsetsInspectorTests {

	@Test
	void shouldTakeTheTransactionalIdsKafkaStreamsGivesTheGroupsOwnProducers() {
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys",
				"valueguard-keys-6f3b1cc3-c958-4e23-8913-d881141468a8-1")).isTrue();
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys",
				"valueguard-keys-6F3B1CC3-C958-4E23-8913-D881141468A8-12")).isTrue();
	}

	@Test
	void shouldLeaveOutOtherApplicationsTransactionsThatShareTheOffsetsPartition() {
		// another stage of the same deployment, another deployment whose id begins like this one's, a plain producer
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys",
				"valueguard-values-6f3b1cc3-c958-4e23-8913-d881141468a8-1")).isFalse();
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys",
				"valueguard-keys-eu-keys-6f3b1cc3-c958-4e23-8913-d881141468a8-1")).isFalse();
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys", "valueguard-keys-importer")).isFalse();
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys", "held-back-offsets-holder")).isFalse();
		assertThat(AdminOffsetsInspector.ofGroup("valueguard-keys", "valueguard-keys")).isFalse();
	}

}
