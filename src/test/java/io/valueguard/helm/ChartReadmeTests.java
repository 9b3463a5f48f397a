package io.valueguard.helm;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The chart's README lists every value with its default and description, as values.yaml documents them ({@code # --}
 * comments, helm-docs style), and values.schema.json validates each. The table is generated from values.yaml: after a
 * deliberate change, rerun with {@code -Dchart.readme.update=true} and review the diff.
 */
class ChartReadmeTests {

	private static final Path CHART = Path.of("helm", "valueguard");

	private static final String BEGIN = "<!-- values: generated from values.yaml by ChartReadmeTests -->";

	private static final String END = "<!-- values: end -->";

	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** A documented value: its dotted path, its default as YAML shows it, and its description. */
	record Value(String path, String defaultValue, String description) {

	}

	@Test
	void shouldListEveryValueWithItsDefaultAndDescription() throws IOException {
		String table = table(documentedValues());
		Path readme = CHART.resolve("README.md");
		String text = Files.readString(readme);
		int begin = text.indexOf(BEGIN) + BEGIN.length();
		int end = text.indexOf(END);
		String current = text.substring(begin, end);
		if (Boolean.getBoolean("chart.readme.update")) {
			Files.writeString(readme, text.substring(0, begin) + "\n" + table + text.substring(end));
			return;
		}
		assertThat(current).as("the values table of helm/valueguard/README.md (-Dchart.readme.update=true rewrites it)")
			.isEqualTo("\n" + table);
	}

	@Test
	void shouldDocumentEveryValueAndValidateEachInTheSchema() throws IOException {
		List<Value> values = documentedValues();
		Map<String, Object> defaults = new Yaml().load(Files.readString(CHART.resolve("values.yaml")));
		List<String> undocumented = new ArrayList<>();
		leaves("", defaults, values, undocumented);
		assertThat(undocumented).as("values without a '# --' description on them or on a parent").isEmpty();

		JsonNode schema = JSON.readTree(Files.readString(CHART.resolve("values.schema.json")));
		assertThat(values).hasSizeGreaterThan(80).allSatisfy((value) -> {
			JsonNode node = schema;
			for (String key : value.path().split("\\.")) {
				if (!node.has("properties")) {
					// a free-form object (affinity, extraConfig): the schema checks only its type
					break;
				}
				node = node.path("properties").path(key);
				assertThat(node.isMissingNode()).as("values.schema.json has " + value.path()).isFalse();
			}
		});
	}

	/** Walks the defaults; every leaf must be documented itself or under a documented parent. */
	@SuppressWarnings("unchecked")
	private static void leaves(String prefix, Map<String, Object> yaml, List<Value> documented,
			List<String> undocumented) {
		yaml.forEach((key, value) -> {
			String path = prefix.isEmpty() ? key : prefix + "." + key;
			if (documented.stream().anyMatch((doc) -> doc.path().equals(path))) {
				return;
			}
			if (value instanceof Map<?, ?> nested && !nested.isEmpty()) {
				leaves(path, (Map<String, Object>) nested, documented, undocumented);
			}
			else {
				undocumented.add(path);
			}
		});
	}

	/** The values that carry a {@code # --} comment, in file order, read line by line as helm-docs reads them. */
	static List<Value> documentedValues() throws IOException {
		List<String> lines = Files.readAllLines(CHART.resolve("values.yaml"));
		Map<String, Object> defaults = new Yaml().load(String.join("\n", lines));
		List<Value> values = new ArrayList<>();
		List<String> keys = new ArrayList<>();
		List<Integer> indents = new ArrayList<>();
		StringBuilder description = null;
		for (String line : lines) {
			String trimmed = line.strip();
			if (trimmed.startsWith("# --")) {
				description = new StringBuilder(trimmed.substring(4).strip());
				continue;
			}
			if (trimmed.startsWith("#")) {
				if (description != null) {
					description.append(' ').append(trimmed.substring(1).strip());
				}
				continue;
			}
			if (trimmed.isEmpty() || trimmed.startsWith("-") || !trimmed.contains(":")) {
				continue;
			}
			int indent = line.length() - line.stripLeading().length();
			while (!indents.isEmpty() && indents.get(indents.size() - 1) >= indent) {
				indents.remove(indents.size() - 1);
				keys.remove(keys.size() - 1);
			}
			keys.add(trimmed.substring(0, trimmed.indexOf(':')));
			indents.add(indent);
			if (description != null) {
				String path = String.join(".", keys);
				values.add(new Value(path, render(valueAt(defaults, keys)), description.toString()));
				description = null;
			}
		}
		return values;
	}

	@SuppressWarnings("unchecked")
	private static Object valueAt(Map<String, Object> defaults, List<String> keys) {
		Object node = defaults;
		for (String key : keys) {
			node = ((Map<String, Object>) node).get(key);
		}
		return node;
	}

	private static String render(Object value) {
		if (value instanceof String text) {
			return text.isEmpty() ? "`\"\"`" : "`" + text + "`";
		}
		if (value instanceof Map<?, ?> || value instanceof List<?>) {
			return "`" + JSON.writeValueAsString(value) + "`";
		}
		return "`" + value + "`";
	}

	private static String table(List<Value> values) {
		StringBuilder table = new StringBuilder("| value | default | description |\n| --- | --- | --- |\n");
		for (Value value : values) {
			table.append("| `").append(value.path()).append("` | ").append(value.defaultValue().replace("|", "\\|"))
				.append(" | ").append(value.description().replace("|", "\\|")).append(" |\n");
		}
		return table.toString();
	}

}
