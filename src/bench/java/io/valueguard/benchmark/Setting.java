package io.valueguard.benchmark;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * A row of a throughput benchmark: the Kafka Streams configuration both applications run with, on top of their own
 * defaults, more arguments for ValueGuard, another build's jar to run instead of this one's, if any, how many
 * ValueGuard instances share the work (one application, its partitions divided among them), and more JVM options and
 * environment for ValueGuard's processes (what a deployment sets outside the application, such as the collector or
 * glibc's malloc arenas).
 */
record Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
		List<String> valueGuardArguments, java.io.@Nullable File jar, int instances, List<String> jvmOptions,
		Map<String, String> environment) {

	static final Setting DEFAULTS = new Setting("defaults", Map.of(), Map.of());

	Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard) {
		this(name, baseline, valueGuard, List.of());
	}

	Setting(String name, Map<String, String> baseline, Map<String, String> valueGuard,
			List<String> valueGuardArguments) {
		this(name, baseline, valueGuard, valueGuardArguments, null, 1, List.of(), Map.of());
	}

	/** The defaults, run from another build's jar: whether a change cost throughput. */
	static Setting fromJar(java.io.File jar) {
		return new Setting("ValueGuard from " + jar, Map.of(), Map.of(), List.of(), jar, 1, List.of(), Map.of());
	}

	/** The defaults on {@code instances} ValueGuard instances. */
	static Setting onInstances(int instances) {
		return new Setting("ValueGuard on " + instances + " instances", Map.of(), Map.of(), List.of(), null, instances,
				List.of(), Map.of());
	}

	/** This row under another name, every setting kept: the warm-up runs as the first row does. */
	Setting named(String other) {
		return new Setting(other, this.baseline, this.valueGuard, this.valueGuardArguments, this.jar, this.instances,
				this.jvmOptions, this.environment);
	}

	/** The defaults, with more JVM options and environment for ValueGuard's process. */
	static Setting withProcess(List<String> jvmOptions, Map<String, String> environment) {
		List<String> named = new java.util.ArrayList<>(jvmOptions);
		environment.forEach((variable, value) -> named.add(variable + "=" + value));
		return new Setting("ValueGuard run with " + String.join(" ", named), Map.of(), Map.of(), List.of(), null, 1,
				jvmOptions, environment);
	}

}
