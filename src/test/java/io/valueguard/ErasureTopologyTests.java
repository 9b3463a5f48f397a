package io.valueguard;

import java.nio.charset.StandardCharsets;
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
import org.junit.jupiter.params.provider.CsvSource;

import static io.valueguard.support.TopologyHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * Erasure through the real topology, both stages in one driver: the key lets go of what it holds, and once the value
 * stage's next full pass is done its name is in no store and the last changelog record of every entry that named it
 * no longer does; the rule goes on for everyone else as design.md states it.
 */
@ParameterizedClass(name = "{0}, {1} stores")
@CsvSource({ "LATEST_WINS, ROCKSDB", "LATEST_WINS, IN_MEMORY", "FIRST_WINS, ROCKSDB" })
class ErasureTopologyTests {

	private static final String[] STORES = { "bindings", "owners", "erasures" };

	private final ClaimPolicy policy;

	private final StoreType storeType;

	private TopologyHarness harness;

	ErasureTopologyTests(ClaimPolicy policy, StoreType storeType) {
		this.policy = policy;
		this.storeType = storeType;
		this.harness = harness(Map.of());
	}

	private TopologyHarness harness(Map<String, Object> settings) {
		Map<String, Object> properties = new HashMap<>(settings);
		properties.put("valueguard.store.type", this.storeType.name());
		properties.put("valueguard.policy", this.policy.name());
		return new TopologyHarness(TestProperties.of(properties), KeyStageEvents.NONE);
	}

	@AfterEach
	void close() {
		this.harness.close();
	}

	@Test
	void shouldEraseTheKeysNameFromEveryStoreAndTheLatestChangelogRecords() {
		// mallory held seat-1, then moved to seat-2: both values' entries name mallory
		this.harness.claim("mallory", "seat-1", 1_000).claim("mallory", "seat-2", 2_000).claim("bob", "seat-3", 2_500);
		assertThat(namesIn("mallory")).isNotEmpty();
		this.harness.bindingRecords();

		// with retention off, each value stage task's pass starts when the erasure arrives: a small store is done then,
		// and the last report deletes the key's entry, with no scheduled slice in between
		this.harness.erase("mallory", 3_000);

		assertThat(this.harness.keyClaim("mallory")).as("deleted once every partition reported").isNull();
		assertThat(namesIn("mallory")).isEmpty();
		// a tombstone for the binding, which compaction removes with every record before it; no eviction event
		assertThat(this.harness.bindingRecords()).extracting(TestRecord::key, TestRecord::value)
			.containsExactly(tuple("mallory", null));
		assertThat(this.harness.evictionEvents()).isEmpty();
		assertThat(this.harness.boundValues()).containsOnly(Map.entry("bob", "seat-3"));
		// what compaction keeps: the last record per key, of each changelog
		for (String store : STORES) {
			assertThat(latestPerKey(this.harness.changelogRecords(store))).as(store + " changelog after compaction")
				.noneSatisfy((key, value) -> assertThat(mentions(key, "mallory") || mentions(value, "mallory"))
					.isTrue());
		}
	}

	@Test
	void shouldKeepTheRuleForEveryoneElse() {
		this.harness.claim("mallory", "seat-1", 5_000).tombstone("mallory", 6_000);
		this.harness.erase("mallory", 7_000).advanceWallClock(1_000).advanceWallClock(1_000);
		assertThat(namesIn("mallory")).isEmpty();

		// at the erased claim's own time: latest-wins ranks it above every key, as it ranked "mallory" above "alice"
		this.harness.claim("alice", "seat-1", 5_000);
		// later: takes the value
		this.harness.claim("zoe", "seat-1", 5_001);

		if (this.policy == ClaimPolicy.LATEST_WINS) {
			assertThat(this.harness.evictionEvents()).singleElement().satisfies((event) -> {
				assertThat(event.key()).isEqualTo("alice");
				assertThat(event.reason()).isEqualTo(Verdict.Reason.LATE);
				assertThat(event.evictedBy()).as("the erased key is named by nobody").isEmpty();
				assertThat(event.evictedByTimestamp()).isEqualTo(5_000);
			});
			assertThat(this.harness.heldValues()).containsOnly(Map.entry("seat-1", "zoe"));
		}
		else {
			// first-wins: a free value's entry decides nothing, and an erased one is gone
			assertThat(this.harness.heldValues()).containsOnly(Map.entry("seat-1", "alice"));
			assertThat(this.harness.evictionEvents()).singleElement()
				.satisfies((event) -> assertThat(event.reason()).isEqualTo(Verdict.Reason.REFUSED));
		}
	}

	@Test
	void shouldRefuseClaimsOfAKeyBeingErasedAndEraseRequestsWithAValue() {
		// with retention on, an erasure waits for the next of retention's passes, which come by the schedule
		this.harness.close();
		this.harness = harness(Map.of("valueguard.retention", "1h"));
		this.harness.claim("mallory", "seat-1", 1_000).erase("mallory", 2_000);
		assertThat(this.harness.keyClaim("mallory").isErasing()).isTrue();
		// before the value stage's pass: the erasure is under way
		this.harness.claim("mallory", "seat-2", 3_000);
		this.harness.raw(utf8("bob"), utf8("seat-3"), 3_000);
		this.harness.claims("carol", "seat-4", 3_000, true);

		assertThat(this.harness.dlqRecords()).extracting((record) -> new String(record.key(), StandardCharsets.UTF_8),
				(record) -> new String(record.headers().lastHeader("valueguard.dlq.reason").value(),
						StandardCharsets.UTF_8))
			.containsExactly(tuple("mallory", "KEY_BEING_ERASED"), tuple("carol", "ERASE_NOT_TOMBSTONE"));
		assertThat(this.harness.keyClaim("carol")).isNull();

		// once erased, the key is new: it may claim again, at any time
		this.harness.advanceWallClock(1_000).advanceWallClock(1_000);
		assertThat(this.harness.keyClaim("mallory")).isNull();
		this.harness.claim("mallory", "seat-2", 500);
		assertThat(this.harness.boundValues()).containsEntry("mallory", "seat-2");
	}

	/**
	 * The batches that carry an erasure someone waits for say so, to each value stage partition, as a waited-for
	 * claim's does; an erasure nobody waits for is not marked.
	 */
	@Test
	void shouldMarkTheCommandsOfAnErasureSomeoneWaitsFor() {
		this.harness.claim("mallory", "seat-1", 1_000).claim("bob", "seat-2", 1_500);
		this.harness.commandRecords();

		this.harness.waitedForErasure("mallory", 2_000);
		List<TestRecord<String, CommandBatch>> waited = this.harness.commandRecords();
		assertThat(waited).isNotEmpty()
			.allSatisfy((record) -> assertThat(CommandBatch.isWaitedFor(record.headers())).isTrue());
		assertThat(waited).flatExtracting((record) -> record.value().entries())
			.extracting((entry) -> entry.command().type())
			.containsOnlyOnce(OwnerCommand.Type.RELEASE)
			.contains(OwnerCommand.Type.ERASE);
		assertThat(this.harness.keyClaim("mallory")).isNull();

		this.harness.erase("bob", 3_000);
		assertThat(this.harness.commandRecords()).isNotEmpty()
			.allSatisfy((record) -> assertThat(CommandBatch.isWaitedFor(record.headers())).isFalse());
		assertThat(this.harness.keyClaim("bob")).isNull();
	}

	/** Every entry of the three stores whose key or value names {@code key}. */
	private List<String> namesIn(String key) {
		return java.util.Arrays.stream(STORES)
			.flatMap((store) -> this.harness.storeEntries(store)
				.stream()
				.filter((entry) -> mentions(entry.getKey(), key) || mentions(entry.getValue(), key))
				.map((entry) -> store + ": " + new String(entry.getKey(), StandardCharsets.UTF_8)))
			.toList();
	}

	private static Map<String, byte[]> latestPerKey(List<TestRecord<byte[], byte[]>> records) {
		Map<String, byte[]> latest = new HashMap<>();
		for (TestRecord<byte[], byte[]> record : records) {
			latest.put(new String(record.key(), StandardCharsets.UTF_8), record.value());
		}
		// a tombstone is kept for delete.retention.ms: it names its key, which is why that setting is bounded too
		latest.values().removeIf(java.util.Objects::isNull);
		return latest;
	}

	private static boolean mentions(String text, String name) {
		return text.contains(name);
	}

	private static boolean mentions(byte[] bytes, String name) {
		return bytes != null && new String(bytes, StandardCharsets.ISO_8859_1).contains(name);
	}

}
