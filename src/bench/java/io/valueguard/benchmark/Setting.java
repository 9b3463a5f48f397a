package io.valueguard.benchmark;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A row of a throughput benchmark: the Kafka Streams configuration both applications run with, on top of their own
 * defaults, more arguments for ValueGuard, another build's jar to run instead of this one's, if any, and how many
 * ValueGuard instances share the work (one application, its partitions divided among them).
 */
record Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
		List<String> valueGuardArguments, java.io.@Nullable File jar, int instances) {

	static final Setting DEFAULTS = new Setting("defaults", Map.of(), Map.of());

	Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard) {
		this(name, baseline, valueGuard, List.of());
	}

	Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
			List<String> valueGuardArguments) {
		this(name, baseline, valueGuard, valueGuardArguments, null, 1);
	}

	/** The defaults, run from another build's jar: whether a change cost throughput. */
	static Setting fromJar(java.io.File jar) {
		return new Setting("ValueGuard from " + jar, Map.of(), Map.of(), List.of(), jar, 1);
	}

	/** The defaults on {@code instances} ValueGuard instances. */
	static Setting onInstances(int instances) {
		return new Setting("ValueGuard on " + instances + " instances", Map.of(), Map.of(), List.of(), null, instances);
	}

}
