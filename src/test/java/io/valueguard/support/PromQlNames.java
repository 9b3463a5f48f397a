package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Metric names used by the PromQL in the dashboard and the alert rules, and metric names in a scrape. */
public final class PromQlNames {

	private static final Pattern METRIC = Pattern
		.compile("\\b((?:valueguard|kafka_stream|jvm|process|system|http_server)_[a-zA-Z0-9_:]*)");

	private static final Path CHART = Path.of("helm", "valueguard");

	private PromQlNames() {
	}

	public static Path dashboard() {
		return CHART.resolve("dashboards").resolve("valueguard.json");
	}

	public static Path rules() {
		return CHART.resolve("rules").resolve("valueguard-alerts.yaml");
	}

	/** Every metric name the file's expressions refer to. */
	public static Set<String> usedIn(Path file) {
		Set<String> names = new TreeSet<>();
		Matcher matcher = METRIC.matcher(read(file));
		while (matcher.find()) {
			names.add(matcher.group(1));
		}
		return names;
	}

	/** Every metric name in a Prometheus text exposition. */
	public static Set<String> exposedIn(String scrape) {
		Set<String> names = new TreeSet<>();
		for (String line : scrape.split("\n")) {
			if (!line.isBlank() && !line.startsWith("#")) {
				int end = line.indexOf('{');
				names.add(line.substring(0, (end >= 0) ? end : line.indexOf(' ')));
			}
		}
		return names;
	}

	private static String read(Path file) {
		try {
			return Files.readString(file);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
