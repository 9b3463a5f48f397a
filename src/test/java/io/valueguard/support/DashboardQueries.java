package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every PromQL query of a Grafana dashboard, with its variables expanded as Grafana would: a panel's title, whether
 * its description marks it as showing only rare events (the words "rare events"), and the expression.
 */
public final class DashboardQueries {

	/** One query of one panel. */
	public record Query(String panel, boolean rare, String expression) {

	}

	private DashboardQueries() {
	}

	/**
	 * @param variables each dashboard variable's value, as a regex for those Grafana expands with {@code =~}
	 * @param rateInterval what {@code $__rate_interval} becomes
	 */
	public static List<Query> of(Path dashboard, Map<String, String> variables, String rateInterval) {
		try {
			JsonNode root = JsonMapper.builder().build().readTree(Files.readString(dashboard));
			List<Query> queries = new ArrayList<>();
			collect(root.path("panels"), variables, rateInterval, queries);
			return queries;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private static void collect(JsonNode panels, Map<String, String> variables, String rateInterval,
			List<Query> queries) {
		for (JsonNode panel : panels) {
			// a collapsed row holds its panels
			collect(panel.path("panels"), variables, rateInterval, queries);
			boolean rare = panel.path("description").asString("").toLowerCase(Locale.ROOT).contains("rare events");
			for (JsonNode target : panel.path("targets")) {
				String expression = target.path("expr").asString("");
				if (expression.isBlank()) {
					continue;
				}
				expression = expression.replace("$__rate_interval", rateInterval)
					.replace("${__rate_interval}", rateInterval);
				for (Map.Entry<String, String> variable : variables.entrySet()) {
					expression = expression.replace("${" + variable.getKey() + "}", variable.getValue())
						.replace("$" + variable.getKey(), variable.getValue());
				}
				if (expression.contains("$")) {
					throw new IllegalArgumentException("Unexpanded variable in panel '"
							+ panel.path("title").asString() + "': " + expression);
				}
				queries.add(new Query(panel.path("title").asString(), rare, expression));
			}
		}
	}

}
