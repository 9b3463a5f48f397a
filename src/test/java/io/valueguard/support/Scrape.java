package io.valueguard.support;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/** A parsed Prometheus text scrape, for assertions on series values. */
public record Scrape(String text) {

	/** Values of every series of {@code name} whose labels contain each of {@code labels} ({@code key="value"}). */
	public List<Double> values(String name, String... labels) {
		List<Double> values = new ArrayList<>();
		for (String line : this.text.split("\n")) {
			if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
				continue;
			}
			boolean matches = true;
			for (String label : labels) {
				matches &= line.contains(label);
			}
			if (matches) {
				values.add(Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)));
			}
		}
		return values;
	}

	public OptionalDouble sum(String name, String... labels) {
		List<Double> values = values(name, labels);
		return values.isEmpty() ? OptionalDouble.empty()
				: OptionalDouble.of(values.stream().mapToDouble(Double::doubleValue).sum());
	}

	public OptionalDouble max(String name, String... labels) {
		return values(name, labels).stream().mapToDouble(Double::doubleValue).max();
	}

}
