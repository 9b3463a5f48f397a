package io.valueguard.messages;

import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class KeyPartitionsTests {

	@Test
	void shouldPutAKeyWhereKafkasProducersPutItByDefault() {
		for (String key : new String[] { "alice", "kéy", "a/b", "日本", "+1-555-0100" }) {
			byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
			for (int partitions : new int[] { 1, 4, 6, 7, 100 }) {
				int producers = BuiltInPartitioner.partitionForKey(bytes, partitions);
				assertThat(KeyPartitions.of(key, partitions)).isEqualTo(producers);
				assertThat(KeyPartitions.of(bytes, partitions)).isEqualTo(producers);
			}
		}
	}

	@Test
	void shouldRerouteEachClaimsRecordToItsKeysPartition() {
		byte[] key = "alice".getBytes(StandardCharsets.UTF_8);

		assertThat(KeyPartitions.byKey(6).partitions("t", key, null, 6))
			.isEqualTo(Optional.of(Set.of(KeyPartitions.of("alice", 6))));
	}

	@Test
	void shouldStopTheStreamWhenTheReroutedTopicsPartitionsChanged() {
		assertThatIllegalStateException()
			.isThrownBy(() -> KeyPartitions.byKey(6).partitions("app-rerouted-claims", new byte[] { 1 }, null, 8))
			.withMessageContaining("'app-rerouted-claims' has 8 partitions, but ValueGuard started with 6");
	}

}
