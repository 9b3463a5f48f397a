package io.valueguard;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.claims.KeyStageEvents;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.StoreType;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.OwnerCommand;
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

/** The first-wins policy through the real topology in a TopologyTestDriver, which commits after every record. */
@ParameterizedClass(name = "{0} stores")
@EnumSource(StoreType.class)
class FirstWinsTopologyTests {

	private final TopologyHarness harness;

	FirstWinsTopologyTests(StoreType storeType) {
		Map<String, Object> properties = new HashMap<>();
		properties.put("valueguard.store.type", storeType.name());
		properties.put("valueguard.policy", "first-wins");
		this.harness = new TopologyHarness(TestProperties.of(properties), KeyStageEvents.NONE);
	}

	@AfterEach
	void close() {
		this.harness.close();
	}

	@Test
	void shouldPublishBindingOnlyOnceGranted() {
		this.harness.claim("alice", "alice@example.com", 100);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value, TestRecord::timestamp)
			.containsExactly(tuple("alice", "alice@example.com", 100L));
		assertThat(this.harness.keyClaim("alice").bound()).isTrue();
		assertThat(this.harness.keyClaim("alice").pending()).isFalse();
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("alice@example.com", "alice"));
		assertThat(this.harness.evictionEvents()).isEmpty();
	}

	/**
	 * While a rolling restart switches to latest-wins, a key stage that already runs it sends claims it has bound at
	 * once: this value stage rules them by latest-wins, as their batch says, and a greater one takes the value.
	 */
	@Test
	void shouldRuleAClaimByTheRuleItsBatchNames() {
		this.harness.claim("alice", "seat-1", 100).bindingRecords();

		this.harness.commands(new CommandBatch(0, List.of(new CommandBatch.Entry("seat-1",
				OwnerCommand.claim("bob", 200, 0)))), ClaimPolicy.LATEST_WINS, 200);

		assertThat(this.harness.heldValues()).containsExactly(Map.entry("seat-1", "bob"));
		assertThat(this.harness.evictionEvents()).extracting((event) -> event.key(), (event) -> event.reason())
			.containsExactly(tuple("alice", Verdict.Reason.SUPERSEDED));
		assertThat(this.harness.boundValues()).isEmpty();
	}

	@Test
	void shouldRefuseLaterClaimOfHeldValueWithoutEverPublishingIt() {
		this.harness.claim("alice", "alice@example.com", 100).bindingRecords();
		// a later claim, and one stamped earlier than the holder's: neither takes the address
		this.harness.claim("mallory", "alice@example.com", 200).claim("eve", "alice@example.com", 50);

		assertThat(this.harness.bindingRecords()).isEmpty();
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "alice@example.com"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("alice@example.com", "alice"));
		assertThat(this.harness.evictionEvents()).extracting((event) -> event.key(), (event) -> event.evictedBy(),
				(event) -> event.evictedByTimestamp(), (event) -> event.reason())
			.containsExactly(tuple("mallory", "alice", 100L, Verdict.Reason.REFUSED),
					tuple("eve", "alice", 100L, Verdict.Reason.REFUSED));
		assertThat(this.harness.keyClaim("mallory").value()).isEqualTo("alice@example.com");
		assertThat(this.harness.keyClaim("mallory").bound()).isFalse();
		assertThat(this.harness.keyClaim("mallory").pending()).isFalse();
	}

	@Test
	void shouldNotQueueRefusedClaimButGrantTheNextClaimOnceFree() {
		this.harness.claim("alice", "seat-1", 100).claim("bob", "seat-1", 200).tombstone("alice", 300);
		assertThat(this.harness.heldValues()).as("bob's refused claim is not queued").isEmpty();
		this.harness.bindingRecords();

		this.harness.claim("carol", "seat-1", 400).claim("bob", "seat-1", 500);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("carol", "seat-1"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("seat-1", "carol"));
	}

	@Test
	void shouldAskAgainWhenARefusedClaimIsSentAgainAtTheSameTime() {
		this.harness.claim("alice", "seat-1", 100).claim("bob", "seat-1", 200).tombstone("alice", 300);
		this.harness.bindingRecords();

		// a retry of bob's record, timestamp and all: refused before, so it asks again, a millisecond later
		this.harness.claim("bob", "seat-1", 200);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value, TestRecord::timestamp)
			.containsExactly(tuple("bob", "seat-1", 201L));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("seat-1", "bob"));
	}

	@Test
	void shouldUnpublishOldValueWhenHolderMovesAndFreeItForOthers() {
		this.harness.claim("alice", "seat-1", 100).claim("alice", "seat-2", 200).claim("bob", "seat-1", 300);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("alice", "seat-1"), tuple("alice", null), tuple("alice", "seat-2"),
					tuple("bob", "seat-1"));
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("seat-1", "bob"), Map.entry("seat-2", "alice"));
		assertThat(this.harness.evictionEvents()).isEmpty();
	}

	@Test
	void shouldKeepValueWhenHolderClaimsItAgain() {
		this.harness.claim("alice", "seat-1", 100).claim("alice", "seat-1", 200).claim("bob", "seat-1", 300);

		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "seat-1"));
		assertThat(this.harness.owner("seat-1").timestamp()).isEqualTo(200);
		// released with the later claim's time, which the value stage took when the holder claimed again
		this.harness.tombstone("alice", 400).claim("bob", "seat-1", 500);
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("seat-1", "bob"));
	}

}
