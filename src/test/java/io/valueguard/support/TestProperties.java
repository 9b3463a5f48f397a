package io.valueguard.support;

import io.valueguard.system.ValueGuardProperties;

/** The defaults that {@code application.yml} and the property records give, for tests without Spring. */
public final class TestProperties {

	private TestProperties() {
	}

	public static ValueGuardProperties defaults() {
		return withLimits(1024, 1024);
	}

	public static ValueGuardProperties withLimits(int maxKeyBytes, int maxValueBytes) {
		return new ValueGuardProperties("valueguard",
				new ValueGuardProperties.Topics("valueguard.claims", "valueguard.bindings", "valueguard.evictions",
						"valueguard.claims.dlq", 6, (short) 1, 1),
				new ValueGuardProperties.Limits(maxKeyBytes, maxValueBytes),
				new ValueGuardProperties.Streams(true, java.time.Duration.ofSeconds(30)));
	}

}
