package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import io.valueguard.claims.ClaimHeaders;
import io.valueguard.claims.KeyStageEvents;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.support.TestProperties;
import io.valueguard.support.TopologyHarness;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * A conditional release lets go of the key's claim only if it is still the claim the release names (its value, and
 * its effective timestamp when given), decided in the key's record order; otherwise it changes nothing, not even the
 * key's clock. Through the real topology, both stages in one driver.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(ClaimPolicy.class)
class ConditionalReleaseTopologyTests {

	private final TopologyHarness harness;

	ConditionalReleaseTopologyTests(ClaimPolicy policy) {
		this.harness = new TopologyHarness(TestProperties.of(Map.of("valueguard.policy", policy.name())),
				KeyStageEvents.NONE);
	}

	@AfterEach
	void close() {
		this.harness.close();
	}

	@Test
	void shouldReleaseTheValueTheKeyStillClaims() {
		this.harness.claim("device-7", "user-alice", 1_000).claim("device-8", "user-bob", 1_100);

		this.harness.releaseIf("device-7", "user-alice", 2_000);

		assertThat(this.harness.boundValues()).containsOnly(Map.entry("device-8", "user-bob"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("user-bob", "device-8"));
		assertThat(this.harness.keyClaim("device-7").value()).isNull();
		assertThat(this.harness.keyClaim("device-7").timestamp()).isEqualTo(2_000);
	}

	/** The unpairing from alice arrives after the device was paired with bob: it must not unpair bob. */
	@Test
	void shouldLeaveALaterClaimOfAnotherValueAsItIs() {
		this.harness.claim("device-7", "user-alice", 1_000).claim("device-7", "user-bob", 2_000);
		this.harness.bindingRecords();

		this.harness.releaseIf("device-7", "user-alice", 3_000);

		assertThat(this.harness.boundValues()).containsOnly(Map.entry("device-7", "user-bob"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("user-bob", "device-7"));
		assertThat(this.harness.bindingRecords()).as("nothing published").isEmpty();
		assertThat(this.harness.dlqRecords()).as("a condition not met is no error").isEmpty();
		// nor did the key's clock move: a claim between the two timestamps counts at its own
		this.harness.claim("device-7", "user-carol", 2_500);
		assertThat(this.harness.keyClaim("device-7").timestamp()).isEqualTo(2_500);
	}

	@Test
	void shouldLeaveAKeyThatClaimsNothingAsItIs() {
		this.harness.claim("device-7", "user-alice", 1_000).tombstone("device-7", 2_000);

		this.harness.releaseIf("device-7", "user-alice", 3_000).releaseIf("device-9", "user-alice", 3_000);

		assertThat(this.harness.keyClaim("device-7").timestamp()).isEqualTo(2_000);
		assertThat(this.harness.keyClaim("device-9")).as("a key never claimed gets no entry").isNull();
	}

	/** With the timestamp, a release meant for an earlier claim of the value does not take a later one. */
	@Test
	void shouldTellTwoClaimsOfTheSameValueApartByTheirTimestamp() {
		this.harness.claim("device-7", "user-alice", 1_000)
			.claim("device-7", "user-bob", 2_000)
			.claim("device-7", "user-alice", 3_000);

		this.harness.record("device-7", null, 4_000, ClaimHeaders.IF_VALUE, "user-alice", ClaimHeaders.IF_TIMESTAMP,
				"1000");
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("device-7", "user-alice"));

		this.harness.record("device-7", null, 4_000, ClaimHeaders.IF_VALUE, "user-alice", ClaimHeaders.IF_TIMESTAMP,
				"3000");
		assertThat(this.harness.boundValues()).isEmpty();
		assertThat(this.harness.heldValues()).isEmpty();
	}

	/** Records that set a condition the key stage cannot read, or may not apply, go to the DLQ and change nothing. */
	@Test
	void shouldSendConditionsItCannotApplyToTheDeadLetterQueue() {
		this.harness.claim("device-7", "user-alice", 1_000);

		// a claim with a condition, an erasure with one, a timestamp alone, a timestamp that is no number
		this.harness.record("device-7", "user-bob", 2_000, ClaimHeaders.IF_VALUE, "user-alice");
		this.harness.record("device-7", null, 2_000, ClaimHeaders.IF_VALUE, "user-alice", ClaimHeaders.ERASE, "true");
		this.harness.record("device-7", null, 2_000, ClaimHeaders.IF_TIMESTAMP, "1000");
		this.harness.record("device-7", null, 2_000, ClaimHeaders.IF_VALUE, "user-alice", ClaimHeaders.IF_TIMESTAMP,
				"yesterday");
		// a value that is not UTF-8
		RecordHeaders notUtf8 = new RecordHeaders();
		notUtf8.add(ClaimHeaders.IF_VALUE, new byte[] { (byte) 0xC3, (byte) 0x28 });
		this.harness.raw(TopologyHarness.utf8("device-7"), null, 2_000, notUtf8);

		assertThat(this.harness.dlqRecords()).extracting((record) -> reason(record)).containsOnly("INVALID_CONDITION")
			.hasSize(5);
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("device-7", "user-alice"));
		assertThat(this.harness.keyClaim("device-7").timestamp()).isEqualTo(1_000);
	}

	private static String reason(TestRecord<byte[], byte[]> record) {
		return new String(record.headers().lastHeader("valueguard.dlq.reason").value(), StandardCharsets.UTF_8);
	}

}
