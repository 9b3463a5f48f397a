package io.valueguard;

import java.util.List;
import java.util.Map;
import java.util.Random;

import io.valueguard.claims.KeyStageEvents;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.support.HistoryGenerator;
import io.valueguard.support.InputRecord;
import io.valueguard.support.ReferenceModel;
import io.valueguard.support.TestProperties;
import io.valueguard.support.TopologyHarness;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

import static io.valueguard.support.TopologyHarness.utf8;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Claims taken from JSON records ({@code valueguard.claims.format=json}): random histories written as JSON documents,
 * releases written every way a JSON topic says them (a tombstone, a document without the field, a null there),
 * through the real topology, compared with the reference model of the same history as plain claims.
 */
class JsonClaimsRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final ValueGuardProperties PROPERTIES = TestProperties
		.of(Map.of("valueguard.claims.format", "json", "valueguard.claims.value-pointer", "/contact/email"));

	/** The same, with stores in memory: a driver per history, so RocksDB's start-up would dominate. */
	private static final ValueGuardProperties IN_MEMORY = TestProperties.of(Map.of("valueguard.claims.format", "json",
			"valueguard.claims.value-pointer", "/contact/email", "valueguard.store.type", "in-memory"));

	@Test
	void shouldMatchReferenceModelOverJsonRecords() {
		for (int i = 0; i < 200; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			List<InputRecord> history = new HistoryGenerator(random, 2 + random.nextInt(10), 1 + random.nextInt(4))
				.history(5 + random.nextInt(50));
			try (TopologyHarness harness = new TopologyHarness(IN_MEMORY, KeyStageEvents.NONE)) {
				for (InputRecord record : history) {
					harness.raw(utf8(record.key()), document(record, random), record.timestamp());
				}
				ReferenceModel expected = new ReferenceModel().apply(history);
				String reproduce = "seed " + seed + " (-Dvalueguard.seed=" + seed + "), history " + history;
				assertThat(harness.boundValues()).as("bindings, " + reproduce).isEqualTo(expected.bindings());
				assertThat(harness.heldValues()).as("owners, " + reproduce).isEqualTo(expected.owners());
				assertThat(harness.dlqRecords()).as("dead letters, " + reproduce).isEmpty();
			}
		}
	}

	@Test
	void shouldSendRecordsThatAreNotJsonOrNotScalarToDlqAndKeepProcessing() {
		try (TopologyHarness harness = new TopologyHarness(PROPERTIES, KeyStageEvents.NONE)) {
			harness.raw(utf8("ada"), utf8("ada@example.com"), 1)
				.raw(utf8("ada"), utf8("{\"contact\":{\"email\":[\"a@x\"]}}"), 2)
				.raw(utf8("ada"), utf8("{\"contact\":{\"email\":\"\"}}"), 3)
				.raw(utf8("ada"), utf8("{\"contact\":{\"email\":\"ada@example.com\"}}"), 4);

			assertThat(harness.dlqRecords()).extracting((record) -> header(record, "valueguard.dlq.reason"))
				.containsExactly("VALUE_NOT_JSON", "POINTER_NOT_SCALAR", "EMPTY_VALUE");
			assertThat(harness.boundValues()).containsExactly(Map.entry("ada", "ada@example.com"));
		}
	}

	/** The record as a JSON topic would carry it; a release in one of the three shapes that mean one. */
	private static byte[] document(InputRecord record, Random random) {
		ObjectNode document = JSON.createObjectNode().put("id", random.nextInt(1000));
		if (record.value() != null) {
			document.putObject("contact").put("email", record.value()).put("phone", "+1-555");
			return utf8(JSON.writeValueAsString(document));
		}
		return switch (random.nextInt(3)) {
			case 0 -> null;
			case 1 -> utf8(JSON.writeValueAsString(document));
			default -> {
				document.putObject("contact").putNull("email");
				yield utf8(JSON.writeValueAsString(document));
			}
		};
	}

	private static String header(TestRecord<byte[], byte[]> record, String name) {
		Header header = record.headers().lastHeader(name);
		return (header != null) ? new String(header.value(), java.nio.charset.StandardCharsets.UTF_8) : null;
	}

}
