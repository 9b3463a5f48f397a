package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.valueguard.support.ApiClient;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.ServiceInstance;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Erasure end to end on a real broker: {@code DELETE ?erase=true&wait=} answers once both stages have erased the
 * key's name; then no lookup names it, and once compaction has run (forced here: segments roll every second, the
 * service sets a one-second {@code max.compaction.lag.ms} and no {@code delete.retention.ms} on what it creates) no
 * record of the bindings topic or of any changelog does, aborted ones included.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 1, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1", "log.roll.ms=1000",
		"log.cleaner.backoff.ms=200" })
class ErasureIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(120);

	private static final String ID = "erasure";

	/** Every compacted topic that could name a key: the output and the three stores' changelogs. */
	private static final List<String> COMPACTED = List.of(ID + ".bindings", ID + "-keys-bindings-changelog",
			ID + "-values-owners-changelog", ID + "-values-erasures-changelog");

	@TempDir
	Path state;

	private ServiceInstance service;

	@AfterEach
	void stop() {
		if (this.service != null) {
			this.service.close();
		}
	}

	@Test
	void shouldLeaveNoStoreLookupOrCompactedRecordNamingTheErasedKey(EmbeddedKafkaBroker broker) {
		ApiClient api = start(broker);
		// mallory held seat-1, moved to seat-2 (seat-1's top claim still names her), and lost seat-3 to bob
		assertThat(api.claim("mallory", "seat-1", "30s").json().get("outcome").asString()).isEqualTo("BOUND");
		assertThat(api.claim("mallory", "seat-3", "30s").json().get("outcome").asString()).isEqualTo("BOUND");
		assertThat(api.claim("bob", "seat-3", "30s").json().get("outcome").asString()).isEqualTo("BOUND");
		assertThat(api.claim("mallory", "seat-2", "30s").json().get("outcome").asString()).isEqualTo("BOUND");

		ApiClient.Reply erased = api.erase("mallory", "30s");

		assertThat(erased.status()).as(erased.body()).isEqualTo(200);
		assertThat(erased.json().get("outcome").asString()).isEqualTo("ERASED");
		assertThat(api.binding("mallory").status()).isEqualTo(404);
		assertThat(api.get("/api/claims/mallory").status()).isEqualTo(404);
		assertThat(api.owner("seat-1").status()).isEqualTo(404);
		assertThat(api.owner("seat-2").status()).isEqualTo(404);
		assertThat(api.get("/api/bindings").body()).doesNotContain("mallory").contains("bob");
		// everyone else goes on: seat-2 is free for the next claim
		assertThat(api.claim("carol", "seat-2", "30s").json().get("outcome").asString()).isEqualTo("BOUND");

		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			assertThat(namingRecords(kafka, "mallory")).as("before compaction").isNotEmpty();
			int[] round = { 0 };
			await("compaction removed every record naming the key").atMost(PATIENCE)
				.pollInterval(Duration.ofMillis(1500))
				.untilAsserted(() -> {
					// segments roll only when written to: keep every compacted topic written, an erasure included
					String filler = "filler-" + round[0]++;
					api.claim(filler, "f-" + round[0], "10s");
					api.erase(filler, "1ms");
					assertThat(namingRecords(kafka, "mallory")).isEmpty();
				});
		}
	}

	private static Map<String, Long> namingRecords(KafkaProbe kafka, String name) {
		byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
		Map<String, Long> naming = new java.util.TreeMap<>();
		for (String topic : COMPACTED) {
			long count = kafka.readLog(topic)
				.stream()
				.filter((record) -> contains(record.key(), bytes) || contains(record.value(), bytes))
				.count();
			if (count > 0) {
				naming.put(topic, count);
			}
		}
		return naming;
	}

	private static boolean contains(byte[] haystack, byte[] needle) {
		if (haystack == null) {
			return false;
		}
		outer: for (int i = 0; i + needle.length <= haystack.length; i++) {
			for (int j = 0; j < needle.length; j++) {
				if (haystack[i + j] != needle[j]) {
					continue outer;
				}
			}
			return true;
		}
		return false;
	}

	private ApiClient start(EmbeddedKafkaBroker broker) {
		this.service = ServiceInstance.start(ID, broker.getBrokersAsString(), this.state, PATIENCE,
				"--valueguard.store.max-compaction-lag=1s", "--valueguard.store.delete-retention=0s");
		return this.service.api();
	}

}
