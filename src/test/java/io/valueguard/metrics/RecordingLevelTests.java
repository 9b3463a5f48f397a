package io.valueguard.metrics;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.valueguard.support.PromQlNames;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * ValueGuard records Kafka Streams metrics at INFO by default, where RocksDB's statistics-based metrics are registered
 * but never move. So the dashboard keeps them in its collapsed DEBUG-only row, and an alert that reads them says so
 * with a {@code recording_level: debug} label; everything else reads metrics every level reports.
 */
class RecordingLevelTests {

	/** Kafka Streams' statistics-based RocksDB metrics (KIP-471), as Prometheus names. */
	private static final List<String> STATISTICS = List.of("kafka_stream_state_bytes_written",
			"kafka_stream_state_bytes_read", "kafka_stream_state_memtable_bytes_flushed",
			"kafka_stream_state_memtable_hit_ratio", "kafka_stream_state_memtable_flush_time",
			"kafka_stream_state_block_cache_data_hit_ratio", "kafka_stream_state_block_cache_index_hit_ratio",
			"kafka_stream_state_block_cache_filter_hit_ratio", "kafka_stream_state_write_stall_duration",
			"kafka_stream_state_bytes_read_compaction", "kafka_stream_state_bytes_written_compaction",
			"kafka_stream_state_compaction_time", "kafka_stream_state_number_open_files",
			"kafka_stream_state_number_file_errors");

	@Test
	void dashboardShowsStatisticsOnlyInItsDebugRow() throws Exception {
		JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(PromQlNames.dashboard()));
		List<String> everyLevel = new ArrayList<>();
		List<String> debugOnly = new ArrayList<>();
		for (JsonNode panel : dashboard.get("panels")) {
			if (panel.has("panels") && !panel.get("panels").isEmpty()) {
				assertThat(panel.get("title").asString()).contains("DEBUG");
				assertThat(panel.get("collapsed").asBoolean()).isTrue();
				panel.get("panels").forEach((inner) -> debugOnly.addAll(expressions(inner)));
			}
			everyLevel.addAll(expressions(panel));
		}
		assertThat(everyLevel).isNotEmpty().noneMatch(RecordingLevelTests::readsStatistics);
		assertThat(debugOnly).isNotEmpty().allMatch(RecordingLevelTests::readsStatistics);
	}

	@Test
	@SuppressWarnings("unchecked")
	void alertsOnStatisticsSayTheyNeedDebugAndOthersCoverTheDefault() throws Exception {
		Map<String, Object> rules = new Yaml().load(Files.readString(PromQlNames.rules()));
		List<String> debugAlerts = new ArrayList<>();
		List<String> everyLevelExpressions = new ArrayList<>();
		for (Map<String, Object> group : (List<Map<String, Object>>) rules.get("groups")) {
			for (Map<String, Object> rule : (List<Map<String, Object>>) group.get("rules")) {
				String expression = rule.get("expr").toString();
				Map<String, Object> labels = (Map<String, Object>) rule.get("labels");
				if ("debug".equals(labels.get("recording_level"))) {
					assertThat(expression).matches(RecordingLevelTests::readsStatistics);
					debugAlerts.add(rule.get("alert").toString());
				}
				else {
					assertThat(expression).as(rule.get("alert").toString())
						.doesNotMatch(RecordingLevelTests::readsStatistics);
					everyLevelExpressions.add(expression);
				}
			}
		}
		assertThat(debugAlerts).containsExactly("ValueGuardRocksDBWriteStalls");
		// what the stall alert sees at DEBUG, the backlog alerts see coming at every level
		assertThat(everyLevelExpressions).anyMatch((expression) -> expression.contains("mem_table_flush_pending"))
			.anyMatch((expression) -> expression.contains("compaction_pending"));
	}

	private static List<String> expressions(JsonNode panel) {
		List<String> expressions = new ArrayList<>();
		if (panel.has("targets")) {
			panel.get("targets").forEach((target) -> expressions.add(target.get("expr").asString()));
		}
		return expressions;
	}

	private static boolean readsStatistics(String expression) {
		return STATISTICS.stream().anyMatch(expression::contains);
	}

}
