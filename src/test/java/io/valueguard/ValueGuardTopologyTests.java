package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import io.valueguard.claims.EvictionEvent;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.StoreType;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.support.TestProperties;
import io.valueguard.support.TopologyHarness;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

import static io.valueguard.support.TopologyHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/** Every rule of the key and value stages, through the real topology in a TopologyTestDriver. */
@ParameterizedClass(name = "{0} stores")
@EnumSource(StoreType.class)
class ValueGuardTopologyTests {

	private final StoreType storeType;

	private final TopologyHarness harness;

	ValueGuardTopologyTests(StoreType storeType) {
		this.storeType = storeType;
		this.harness = harness(Map.of());
	}

	/** A harness with this run's store type and {@code settings}. */
	private TopologyHarness harness(Map<String, Object> settings) {
		Map<String, Object> properties = new java.util.HashMap<>(settings);
		properties.put("valueguard.store.type", this.storeType.name());
		return new TopologyHarness(TestProperties.of(properties), io.valueguard.claims.KeyStageEvents.NONE);
	}

	@AfterEach
	void close() {
		this.harness.close();
	}

	/** Lookups read a partition's active store through a rebalance of its thread only while its task processes. */
	@Test
	void shouldSayWhichPartitionsItsTasksProcessUntilTheyClose() {
		// the driver runs one task of each stage, on partition 0
		assertThat(this.harness.activePartitions().processing("bindings", 0)).isTrue();
		assertThat(this.harness.activePartitions().processing("owners", 0)).isTrue();
		assertThat(this.harness.activePartitions().processing("bindings", 1)).isFalse();

		this.harness.close();

		assertThat(this.harness.activePartitions().processing("bindings", 0)).isFalse();
		assertThat(this.harness.activePartitions().processing("owners", 0)).isFalse();
	}

	@Test
	void shouldBindKeyWhenItClaimsFreeValue() {
		this.harness.claim("alice", "+15550001", 100);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value, TestRecord::timestamp)
			.containsExactly(tuple("alice", "+15550001", 100L));
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "+15550001"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("+15550001", "alice"));
		assertThat(this.harness.evictionEvents()).isEmpty();
	}

	@Test
	void shouldEvictOldHolderWhenAnotherKeyClaimsLater() {
		this.harness.claim("alice", "phone", 100).bindingRecords();
		this.harness.claim("bob", "phone", 200);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("bob", "phone"), tuple("alice", null));
		List<EvictionEvent> events = this.harness.evictionEvents();
		assertThat(events).singleElement().satisfies((event) -> {
			assertThat(event.key()).isEqualTo("alice");
			assertThat(event.value()).isEqualTo("phone");
			assertThat(event.evictedBy()).isEqualTo("bob");
			assertThat(event.claimTimestamp()).isEqualTo(100);
			assertThat(event.evictedByTimestamp()).isEqualTo(200);
			assertThat(event.reason()).isEqualTo(Verdict.Reason.SUPERSEDED);
			assertThat(event.evictionTimestamp()).isPositive();
		});
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("bob", "phone"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("phone", "bob"));
	}

	@Test
	void shouldReleaseOldValueWhenKeyMoves() {
		this.harness.claim("alice", "v1", 100).claim("alice", "v2", 110);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("alice", "v1"), tuple("alice", "v2"));
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "v2"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("v2", "alice"));
		assertThat(this.harness.owner("v1").released()).isTrue();

		// the released value is free for anyone with a later claim, and nobody is evicted for it
		this.harness.claim("bob", "v1", 120);
		assertThat(this.harness.heldValues()).containsOnly(Map.entry("v1", "bob"), Map.entry("v2", "alice"));
		assertThat(this.harness.evictionEvents()).isEmpty();
	}

	@Test
	void shouldRejectLateClaimWhenNewerClaimOfValueWasProcessed() {
		this.harness.claim("bob", "phone", 200).bindingRecords();
		this.harness.claim("alice", "phone", 100);

		// alice is bound optimistically, then evicted by the verdict: she ends unbound
		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("alice", "phone"), tuple("alice", null));
		assertThat(this.harness.evictionEvents()).singleElement().satisfies((event) -> {
			assertThat(event.key()).isEqualTo("alice");
			assertThat(event.evictedBy()).isEqualTo("bob");
			assertThat(event.reason()).isEqualTo(Verdict.Reason.LATE);
		});
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("bob", "phone"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("phone", "bob"));
	}

	@Test
	void shouldAwardTieToGreaterKeyWhenTimestampsAreEqual() {
		this.harness.claim("bob", "phone", 100).claim("alice", "phone", 100);
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("bob", "phone"));

		try (TopologyHarness reversed = harness(Map.of())) {
			reversed.claim("alice", "phone", 100).claim("bob", "phone", 100);
			assertThat(reversed.boundValues()).containsExactly(Map.entry("bob", "phone"));
			assertThat(reversed.heldValues()).containsExactly(Map.entry("phone", "bob"));
		}
	}

	@Test
	void shouldBreakTiesByUtf8BytesNotUtf16Units() {
		// U+1F600 sorts after U+FF21 in UTF-8 (and in code points), before it in UTF-16
		String emoji = "k\uD83D\uDE00";
		String fullwidth = "k\uFF21";
		this.harness.claim(emoji, "phone", 100).claim(fullwidth, "phone", 100);

		assertThat(this.harness.boundValues()).containsExactly(Map.entry(emoji, "phone"));
	}

	@Test
	void shouldIgnoreStaleEvictionWhenKeyReclaimed() {
		this.harness.claim("alice", "phone", 100).claim("bob", "phone", 200).claim("alice", "phone", 300);
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "phone"));
		this.harness.bindingRecords();
		this.harness.evictionEvents();

		// the verdict against alice's first claim arrives again, late: it names a claim alice no longer has
		this.harness.verdict("alice", new Verdict("phone", 100, "bob", 200, Verdict.Reason.SUPERSEDED, 0));

		assertThat(this.harness.bindingRecords()).isEmpty();
		assertThat(this.harness.evictionEvents()).isEmpty();
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "phone"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("phone", "alice"));
	}

	@Test
	void shouldRejectOlderClaimWhenValueWasReleased() {
		this.harness.claim("alice", "phone", 100).tombstone("alice", 150);
		assertThat(this.harness.heldValues()).isEmpty();
		this.harness.bindingRecords();

		// top(phone) is still alice's claim at 100, released: an older claim must not win it
		this.harness.claim("bob", "phone", 50);

		assertThat(this.harness.boundValues()).isEmpty();
		assertThat(this.harness.heldValues()).isEmpty();
		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("bob", "phone"), tuple("bob", null));
		assertThat(this.harness.evictionEvents()).extracting(EvictionEvent::key, EvictionEvent::reason)
			.containsExactly(tuple("bob", Verdict.Reason.LATE));
	}

	@Test
	void shouldHoldAgainWhenKeyReclaimsReleasedValueAtSameTime() {
		// alice's clock stays at 100: she lets go of v1 and claims it again within one effective timestamp
		this.harness.claim("alice", "v1", 100).claim("alice", "v2", 90).claim("alice", "v1", 80);

		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "v1"));
		assertThat(this.harness.heldValues()).containsExactly(Map.entry("v1", "alice"));
		assertThat(this.harness.keyClaim("alice").timestamp()).isEqualTo(100);
	}

	@Test
	void shouldChangeNothingWhenRecordIsDuplicated() {
		this.harness.claim("alice", "phone", 100).bindingRecords();
		this.harness.claim("alice", "phone", 100);
		this.harness.claim("alice", "phone", 90);

		assertThat(this.harness.bindingRecords()).isEmpty();
		assertThat(this.harness.evictionEvents()).isEmpty();
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "phone"));
	}

	@Test
	void shouldUnbindKeyWhenTombstoneArrives() {
		this.harness.claim("alice", "phone", 100).bindingRecords();
		this.harness.tombstone("alice", 200);

		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("alice", null));
		assertThat(this.harness.boundValues()).isEmpty();
		assertThat(this.harness.heldValues()).isEmpty();

		// a second tombstone has nothing to release
		this.harness.tombstone("alice", 300);
		assertThat(this.harness.bindingRecords()).isEmpty();
		assertThat(this.harness.keyClaim("alice").timestamp()).isEqualTo(300);
	}

	@Test
	void shouldKeepKeyClockWhenRecordTimestampGoesBack() {
		this.harness.claim("alice", "v1", 500).claim("alice", "v2", 100);

		assertThat(this.harness.keyClaim("alice").timestamp()).isEqualTo(500);
		// bob's claim at 400 is older than alice's effective 500, so it loses
		this.harness.claim("bob", "v2", 400);
		assertThat(this.harness.boundValues()).containsExactly(Map.entry("alice", "v2"));
	}

	@Test
	void shouldSendInvalidRecordsToDlqAndKeepProcessing() {
		TopologyHarness limited = harness(
				Map.of("valueguard.limits.max-key-bytes", 8, "valueguard.limits.max-value-bytes", 8));
		try (limited) {
			limited.raw(null, utf8("v"), 1)
				.raw(new byte[0], utf8("v"), 2)
				.raw(utf8("a-very-long-key"), utf8("v"), 3)
				.raw(new byte[] { (byte) 0xC3, (byte) 0x28 }, utf8("v"), 4)
				.raw(utf8("k"), new byte[0], 5)
				.raw(utf8("k"), utf8("a-very-long-value"), 6)
				.raw(utf8("k"), new byte[] { (byte) 0xFF }, 7)
				.claim("k", "fine", 8);

			List<TestRecord<byte[], byte[]>> dlq = limited.dlqRecords();
			assertThat(dlq).extracting((record) -> header(record, "valueguard.dlq.reason"))
				.containsExactly("MISSING_KEY", "MISSING_KEY", "KEY_TOO_LONG", "KEY_NOT_UTF8", "EMPTY_VALUE",
						"VALUE_TOO_LONG", "VALUE_NOT_UTF8");
			assertThat(dlq).extracting((record) -> header(record, "valueguard.dlq.topic"))
				.containsOnly("valueguard.claims");
			assertThat(dlq).extracting((record) -> header(record, "valueguard.dlq.offset"))
				.containsExactly("0", "1", "2", "3", "4", "5", "6");
			assertThat(dlq).allSatisfy((record) -> {
				assertThat(header(record, "valueguard.dlq.partition")).isEqualTo("0");
				assertThat(header(record, "valueguard.dlq.description")).isNotBlank();
			});
			// nothing is lost: the original bytes go to the DLQ as they came
			assertThat(dlq.get(3).key()).containsExactly(0xC3, 0x28);
			assertThat(dlq.get(5).value()).isEqualTo(utf8("a-very-long-value"));
			assertThat(limited.boundValues()).containsExactly(Map.entry("k", "fine"));
		}
	}

	/**
	 * A key's claims are applied on its own partition only (Kafka's default partitioner): one read on another goes
	 * there through the rerouted-claims topic, bytes, timestamp and headers as they came, with where it was read. The
	 * driver has one partition, so the rerouted claim comes back to the partition it left, where it must not go round
	 * again: to the DLQ, naming the claims topic's partition and offset, as any dead letter does.
	 */
	@Test
	void shouldSendAClaimReadOnAnotherPartitionThanItsKeysToItsKeysPartition() {
		AtomicInteger rerouted = new AtomicInteger();
		io.valueguard.claims.KeyStageEvents counting = new io.valueguard.claims.KeyStageEvents() {

			@Override
			public void rerouted() {
				rerouted.incrementAndGet();
			}

		};
		String home = keyOnPartition(TopologyHarness.CLAIMS_PARTITION, 6);
		String away = keyOnPartition(3, 6);
		Map<String, Object> settings = Map.of("valueguard.store.type", this.storeType.name());
		try (TopologyHarness sixPartitions = new TopologyHarness(TestProperties.of(settings), counting, 6)) {
			sixPartitions.claim(home, "seat-1", 1_000).claim(away, "seat-2", 2_000);

			assertThat(sixPartitions.reroutedRecords()).singleElement().satisfies((record) -> {
				assertThat(record.key()).isEqualTo(utf8(away));
				assertThat(record.value()).isEqualTo(utf8("seat-2"));
				assertThat(record.timestamp()).isEqualTo(2_000);
				assertThat(header(record, "valueguard.origin.topic")).isEqualTo("valueguard.claims");
				assertThat(header(record, "valueguard.origin.partition")).isEqualTo("0");
				assertThat(header(record, "valueguard.origin.offset")).isEqualTo("1");
			});
			assertThat(sixPartitions.dlqRecords()).singleElement().satisfies((record) -> {
				assertThat(header(record, "valueguard.dlq.reason")).isEqualTo("WRONG_PARTITION");
				assertThat(header(record, "valueguard.dlq.topic")).isEqualTo("valueguard.claims");
				assertThat(header(record, "valueguard.dlq.partition")).isEqualTo("0");
				assertThat(header(record, "valueguard.dlq.offset")).isEqualTo("1");
				assertThat(record.key()).isEqualTo(utf8(away));
				assertThat(record.value()).isEqualTo(utf8("seat-2"));
			});
			assertThat(sixPartitions.boundValues()).containsExactly(Map.entry(home, "seat-1"));
			assertThat(sixPartitions.heldValues()).containsExactly(Map.entry("seat-1", home));
			assertThat(rerouted).hasValue(1);
		}
	}

	/** A key that Kafka's default partitioner puts on {@code partition} of {@code partitions}. */
	private static String keyOnPartition(int partition, int partitions) {
		for (int candidate = 0;; candidate++) {
			String key = "key-" + candidate;
			if (io.valueguard.messages.KeyPartitions.of(key, partitions) == partition) {
				return key;
			}
		}
	}

	/**
	 * Only ValueGuard writes its internal topics, but a foreign record there (a mirror tool, a mistyped producer) must
	 * not kill a stream thread: replayed after every restart, it would stop the stage for good.
	 */
	@Test
	void shouldSkipForeignRecordsWithoutKeyOrValueOnInternalTopics() {
		this.harness.claim("alice", "seat-1", 1_000)
			.command(null, io.valueguard.messages.OwnerCommand.claim("mallory", 5_000, 0))
			.command("seat-1", null)
			.foreignVerdict(null, new Verdict("seat-1", 1_000, "bob", 2_000, Verdict.Reason.SUPERSEDED, 0))
			.foreignVerdict("alice", null)
			.claim("bob", "seat-1", 2_000);

		assertThat(this.harness.boundValues()).containsExactly(Map.entry("bob", "seat-1"));
		assertThat(this.harness.evictionEvents()).extracting(EvictionEvent::key).containsExactly("alice");
	}

	/** Every batch names the key stage's rule, by which the value stage rules its claims during a policy switch. */
	@Test
	void shouldNameItsRuleOnEveryCommandBatch() {
		this.harness.claim("alice", "seat-1", 100).waitedFor("bob", "seat-2", 150);

		assertThat(this.harness.commandRecords()).hasSize(2)
			.allSatisfy((record) -> assertThat(CommandBatch.ruleOf(record.headers(), ClaimPolicy.FIRST_WINS))
				.isEqualTo(ClaimPolicy.LATEST_WINS));
	}

	/** The batch that carries a waited-for claim's command says so, for the value stage to commit its ruling soon. */
	@Test
	void shouldMarkTheCommandOfAClaimSomeoneWaitsFor() {
		this.harness.waitedFor("alice", "seat-1", 100);
		assertThat(this.harness.commandRecords()).singleElement()
			.satisfies((record) -> assertThat(CommandBatch.isWaitedFor(record.headers())).isTrue());

		this.harness.claim("bob", "seat-2", 150);
		assertThat(this.harness.commandRecords()).singleElement()
			.satisfies((record) -> assertThat(CommandBatch.isWaitedFor(record.headers())).isFalse());
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("alice", "seat-1"), Map.entry("bob", "seat-2"));
	}

	/** Each stage rings the bell when it has applied what a waiting caller's ruling may be. */
	@Test
	void shouldRingTheBellWhenAStageAppliedWhatACallerMayWaitFor() {
		AtomicInteger rings = new AtomicInteger();
		this.harness.bell().listen(rings::incrementAndGet);
		this.harness.claim("bob", "seat-2", 50);
		assertThat(rings).hasValue(0);

		this.harness.waitedFor("alice", "seat-1", 100);
		// the value stage ruled on alice's claim: she holds seat-1
		assertThat(rings).hasValue(1);

		this.harness.claim("carol", "seat-1", 200);
		// alice's eviction reached the key stage
		assertThat(rings).hasValue(2);
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("bob", "seat-2"), Map.entry("carol", "seat-1"));
	}

	/**
	 * A record carries every message of a commit for one partition (the driver commits after each input record): a
	 * key that moves sends its release and its new claim in one record, in that order, and verdicts travel the same
	 * way.
	 */
	@Test
	void shouldSendTheMessagesOfOneCommitAsOneRecordPerPartition() {
		this.harness.claim("alice", "seat-1", 100).claim("bob", "seat-2", 150);
		this.harness.commandRecords();

		this.harness.claim("alice", "seat-2", 200);

		List<TestRecord<String, CommandBatch>> commands = this.harness.commandRecords();
		assertThat(commands).singleElement().satisfies((record) -> {
			assertThat(record.key()).isNull();
			assertThat(record.timestamp()).isEqualTo(200L);
			assertThat(record.value().entries()).containsExactly(
					new CommandBatch.Entry("seat-1", OwnerCommand.release("alice", 100, 0)),
					new CommandBatch.Entry("seat-2", OwnerCommand.claim("alice", 200, 0)));
		});
		assertThat(this.harness.verdictRecords()).singleElement()
			.satisfies((record) -> assertThat(record.value().entries()).containsExactly(new VerdictBatch.Entry("bob",
					new Verdict("seat-2", 150, "alice", 200, Verdict.Reason.SUPERSEDED, 0))));
		assertThat(this.harness.evictionEvents()).extracting(EvictionEvent::key).containsExactly("bob");
	}

	/**
	 * A commit with more writes than go straight to the stores (a stage reading a backlog): one batch of 1,500 later
	 * claims makes the value stage write 1,500 owners and send 1,500 verdicts in one record, and the key stage apply
	 * them in one commit. The writes beyond the first 1,000 of each wait for the commit and must land all the same.
	 */
	@Test
	void shouldApplyEveryWriteWhenACommitHoldsMoreThanGoStraightToTheStore() {
		int claims = 1_500;
		List<CommandBatch.Entry> later = new java.util.ArrayList<>();
		for (int i = 0; i < claims; i++) {
			this.harness.claim("key-" + i, "seat-" + i, 1_000);
			later.add(new CommandBatch.Entry("seat-" + i, OwnerCommand.claim("later-" + i, 2_000, 0)));
		}

		this.harness.commands(new CommandBatch(0, later));

		assertThat(this.harness.heldValues()).hasSize(claims)
			.containsEntry("seat-0", "later-0")
			.containsEntry("seat-" + (claims - 1), "later-" + (claims - 1))
			.allSatisfy((value, key) -> assertThat(key).isEqualTo("later-" + value.substring("seat-".length())));
		assertThat(this.harness.boundValues()).isEmpty();
		assertThat(this.harness.evictionEvents()).hasSize(claims)
			.allSatisfy((event) -> assertThat(event.evictedBy()).isEqualTo("later-" + event.key().substring(4)));
		assertThat(this.harness.keyClaim("key-" + (claims - 1)).bound()).isFalse();
		// the bindings topic read as a table agrees with the store: every key's last record is its tombstone
		Map<String, String> bindingsTopic = new HashMap<>();
		this.harness.bindingRecords().forEach((record) -> bindingsTopic.put(record.key(), record.value()));
		assertThat(bindingsTopic).hasSize(claims).allSatisfy((key, value) -> assertThat(value).isNull());
	}

	/** Records written one message each, as releases before batching did, are still read and applied. */
	@Test
	void shouldApplySingleCommandsAndVerdictsWrittenBeforeBatching() {
		this.harness.claim("alice", "seat-1", 1_000).claim("carol", "phone", 1_000);

		this.harness.command("seat-1", OwnerCommand.claim("bob", 2_000, 0))
			.verdict("carol", new Verdict("phone", 1_000, "dave", 3_000, Verdict.Reason.SUPERSEDED, 0));

		assertThat(this.harness.heldValues()).containsEntry("seat-1", "bob");
		assertThat(this.harness.evictionEvents()).extracting(EvictionEvent::key, EvictionEvent::evictedBy)
			.containsExactly(tuple("alice", "bob"), tuple("carol", "dave"));
		assertThat(this.harness.boundValues()).isEmpty();
	}

	@Test
	void shouldNeedNoRepartitionTopics() {
		assertThat(this.harness.topology().describe().toString()).doesNotContain("repartition");
	}

	private static String header(TestRecord<byte[], byte[]> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), StandardCharsets.UTF_8) : null;
	}

}
