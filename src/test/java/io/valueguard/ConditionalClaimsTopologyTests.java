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
 * A conditional release lets go of the key's claim, and a conditional claim moves the key from it, only if it is still
 * the claim the record names (its value, and its effective timestamp when given), decided in the key's record order;
 * otherwise the record changes nothing, not even the key's clock. Through the real topology, both stages in one
 * driver.
 */
@ParameterizedClass(name = "{0}")
@EnumSource(ClaimPolicy.class)
class ConditionalClaimsTopologyTests {

	private final ClaimPolicy policy;

	private final TopologyHarness harness;

	ConditionalClaimsTopologyTests(ClaimPolicy policy) {
		this.policy = policy;
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

	@Test
	void shouldMoveFromTheValueTheKeyStillClaims() {
		this.harness.claim("account-1", "+4912345", 1_000).claim("account-2", "+4967890", 1_100);

		this.harness.claimIf("account-1", "+4955555", "+4912345", 2_000);

		assertThat(this.harness.boundValues()).containsOnly(Map.entry("account-1", "+4955555"),
				Map.entry("account-2", "+4967890"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("+4955555", "account-1"),
				Map.entry("+4967890", "account-2"));
		assertThat(this.harness.keyClaim("account-1").timestamp()).isEqualTo(2_000);
	}

	/**
	 * The change from the old number arrives after the account moved to another one: it must not undo that move, nor
	 * take the number it names from whoever holds it.
	 */
	@Test
	void shouldNotMoveAKeyThatMovedElsewhereMeanwhile() {
		this.harness.claim("account-1", "+4912345", 1_000)
			.claim("account-1", "+4977777", 2_000)
			.claim("account-2", "+4955555", 2_100);
		this.harness.bindingRecords();

		this.harness.claimIf("account-1", "+4955555", "+4912345", 3_000);

		assertThat(this.harness.boundValues()).containsOnly(Map.entry("account-1", "+4977777"),
				Map.entry("account-2", "+4955555"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("+4977777", "account-1"),
				Map.entry("+4955555", "account-2"));
		assertThat(this.harness.bindingRecords()).as("nothing published").isEmpty();
		assertThat(this.harness.evictionEvents()).as("nobody lost anything").isEmpty();
		assertThat(this.harness.dlqRecords()).as("a condition not met is no error").isEmpty();
		this.harness.claim("account-1", "+4988888", 2_500);
		assertThat(this.harness.keyClaim("account-1").timestamp()).as("the key's clock did not move").isEqualTo(2_500);
	}

	/** A move is a claim: under latest-wins it takes the value from its holder, under first-wins it is refused. */
	@Test
	void shouldRuleOnAMoveAsOnAnyClaim() {
		this.harness.claim("account-1", "+4912345", 1_000).claim("account-2", "+4955555", 1_100);

		this.harness.claimIf("account-1", "+4955555", "+4912345", 2_000);

		assertThat(this.harness.heldValues()).as("the old number is let go either way")
			.doesNotContainKey("+4912345");
		if (this.policy == ClaimPolicy.LATEST_WINS) {
			assertThat(this.harness.boundValues()).containsOnly(Map.entry("account-1", "+4955555"));
			assertThat(this.harness.evictionEvents()).extracting((event) -> event.key()).containsExactly("account-2");
		}
		else {
			assertThat(this.harness.boundValues()).containsOnly(Map.entry("account-2", "+4955555"));
			assertThat(this.harness.keyClaim("account-1").bound()).isFalse();
		}
	}

	@Test
	void shouldNotMoveAKeyThatClaimsNothing() {
		this.harness.claim("account-1", "+4912345", 1_000).tombstone("account-1", 2_000);

		this.harness.claimIf("account-1", "+4955555", "+4912345", 3_000)
			.claimIf("account-9", "+4955555", "+4912345", 3_000);

		assertThat(this.harness.keyClaim("account-1").value()).isNull();
		assertThat(this.harness.keyClaim("account-1").timestamp()).isEqualTo(2_000);
		assertThat(this.harness.keyClaim("account-9")).as("a key never claimed gets no entry").isNull();
		assertThat(this.harness.heldValues()).isEmpty();
	}

	/** With the timestamp, a move meant for an earlier claim of the value does not act on a later one. */
	@Test
	void shouldMoveOnlyFromTheClaimTheTimestampNames() {
		this.harness.claim("account-1", "+4912345", 1_000)
			.claim("account-1", "+4977777", 2_000)
			.claim("account-1", "+4912345", 3_000);

		this.harness.record("account-1", "+4955555", 4_000, ClaimHeaders.IF_VALUE, "+4912345",
				ClaimHeaders.IF_TIMESTAMP, "1000");
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("account-1", "+4912345"));

		this.harness.record("account-1", "+4955555", 4_000, ClaimHeaders.IF_VALUE, "+4912345",
				ClaimHeaders.IF_TIMESTAMP, "3000");
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("account-1", "+4955555"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("+4955555", "account-1"));
	}

	/** Records that set a condition the key stage cannot read, or may not apply, go to the DLQ and change nothing. */
	@Test
	void shouldSendConditionsItCannotApplyToTheDeadLetterQueue() {
		this.harness.claim("device-7", "user-alice", 1_000);

		// an erasure with a condition, a timestamp alone, on a release and on a claim, a timestamp that is no number
		this.harness.record("device-7", null, 2_000, ClaimHeaders.IF_VALUE, "user-alice", ClaimHeaders.ERASE, "true");
		this.harness.record("device-7", null, 2_000, ClaimHeaders.IF_TIMESTAMP, "1000");
		this.harness.record("device-7", "user-bob", 2_000, ClaimHeaders.IF_TIMESTAMP, "1000");
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
