package io.valueguard.benchmark;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A row of a throughput benchmark: the Kafka Streams configuration both applications run with, on top of their own
 * defaults, more arguments for ValueGuard, and another build's jar to run instead of this one's, if any.
 */
record Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
		List<String> valueGuardArguments, java.io.@Nullable File jar) {

	static final Setting DEFAULTS = new Setting("defaults", Map.of(), Map.of());

	Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard) {
		this(name, baseline, valueGuard, List.of());
	}

	Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
			List<String> valueGuardArguments) {
		this(name, baseline, valueGuard, valueGuardArguments, null);
	}

}
