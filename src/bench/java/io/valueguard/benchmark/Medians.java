package io.valueguard.benchmark;

import java.util.List;

/** The median of a benchmark's rounds: single ratios swing by about a tenth between runs on a shared machine. */
final class Medians {

	private Medians() {
	}

	/** The middle value, or the mean of the two middle ones; NaN for none. */
	static double of(List<Double> values) {
		if (values.isEmpty()) {
			return Double.NaN;
		}
		List<Double> sorted = values.stream().sorted().toList();
		int middle = sorted.size() / 2;
		return (sorted.size() % 2 == 1) ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
	}

}
