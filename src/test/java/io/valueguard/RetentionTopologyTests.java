package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import io.valueguard.claims.KeyStageEvents;
import io.valueguard.config.StoreType;
import io.valueguard.messages.Verdict;
import io.valueguard.support.TestProperties;
import io.valueguard.support.TopologyHarness;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Retention through the real topology: claims too old for their task's stream time are refused at either stage,
 * and entries that hold nothing are forgotten, in the store and in its changelog, while holders are kept.
 */
@ParameterizedClass(name = "{0} stores")
@EnumSource(StoreType.class)
class RetentionTopologyTests {

	private static final long HOUR = Duration.ofHours(1).toMillis();

	private final TopologyHarness harness;

	RetentionTopologyTests(StoreType storeType) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("valueguard.store.type", storeType.name());
		properties.put("valueguard.retention", "1h");
		this.harness = new TopologyHarness(TestProperties.of(properties), KeyStageEvents.NONE);
	}

	@AfterEach
	void close() {
		this.harness.close();
	}

	@Test
	void shouldSendClaimsOlderThanTheRetentionToTheDlqButAlwaysLetGo() {
		this.harness.claim("alice", "seat-1", 10 * HOUR).claim("bob", "seat-2", 9 * HOUR + 30 * 60_000);
		// two hours behind the stream time: refused, whatever it would have been
		this.harness.claim("carol", "seat-3", 8 * HOUR);
		// a tombstone is never refused: it only lets go
		this.harness.tombstone("alice", HOUR);

		assertThat(this.harness.dlqRecords()).singleElement().satisfies((record) -> {
			assertThat(new String(record.key(), StandardCharsets.UTF_8)).isEqualTo("carol");
			assertThat(new String(record.headers().lastHeader("valueguard.dlq.reason").value(),
					StandardCharsets.UTF_8)).isEqualTo("CLAIM_TOO_OLD");
		});
		assertThat(this.harness.keyClaim("carol")).isNull();
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("bob", "seat-2"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("seat-2", "bob"));
	}

	@Test
	void shouldForgetEntriesThatHoldNothingOnceTheyAreOlderThanTheRetention() {
		this.harness.claim("alice", "seat-1", 0).tombstone("alice", 60_000).claim("carol", "seat-2", 30_000);
		this.harness.claim("dave", "seat-3", 150 * 60_000).claim("erin", "seat-3", 160 * 60_000);
		this.harness.changelog("bindings");
		this.harness.changelog("owners");
		assertThat(this.harness.keyClaim("alice")).isNotNull();

		// the stream time moves to 3 h; the sweep runs every second of wall-clock time
		this.harness.claim("bob", "seat-4", 3 * HOUR).advanceWallClock(1_000);

		assertThat(this.harness.keyClaim("alice")).as("released 2 h 59 min before").isNull();
		assertThat(this.harness.owner("seat-1")).as("free since 2 h 59 min").isNull();
		assertThat(this.harness.changelog("bindings")).contains(Map.entry("alice", true));
		assertThat(this.harness.changelog("owners")).contains(Map.entry("seat-1", true));
		// holders are kept however old their claims, and so are entries within the retention
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("carol", "seat-2"), Map.entry("erin", "seat-3"),
				Map.entry("bob", "seat-4"));
		assertThat(this.harness.keyClaim("dave").value()).as("evicted 20 min before").isEqualTo("seat-3");
	}

	@Test
	void shouldUnbindAKeyWhoseClaimTheValueStageRefusedAsTooOld() {
		this.harness.claim("alice", "seat-1", HOUR);
		// the value stage's task read a claims partition far ahead (the driver runs one task, so it comes directly)
		this.harness.verdict("alice", Verdict.tooOld("seat-1", HOUR, 5 * HOUR, 0));

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("alice", "seat-1"), tuple("alice", null));
		assertThat(this.harness.evictionEvents()).singleElement().satisfies((event) -> {
			assertThat(event.reason()).isEqualTo(Verdict.Reason.TOO_OLD);
			assertThat(event.evictedBy()).isEmpty();
			assertThat(event.evictedByTimestamp()).isEqualTo(5 * HOUR);
		});
		assertThat(this.harness.keyClaim("alice").bound()).isFalse();
	}

}
