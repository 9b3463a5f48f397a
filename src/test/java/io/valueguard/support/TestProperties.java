package io.valueguard.support;

import java.util.HashMap;
import java.util.Map;

import io.valueguard.config.QueryProperties;
import io.valueguard.config.ValueGuardProperties;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** ValueGuard's settings as Spring binds them, defaults included, for tests without a Spring context. */
public final class TestProperties {

	private TestProperties() {
	}

	public static ValueGuardProperties defaults() {
		return of(Map.of());
	}

	/**
	 * {@code valueguard.query.*} bound from {@code properties} (named without the prefix), with the defaults for
	 * everything they leave out.
	 */
	public static QueryProperties query(Map<String, ?> properties) {
		Map<String, Object> prefixed = new HashMap<>();
		properties.forEach((name, value) -> prefixed.put("valueguard.query." + name, value));
		return new Binder(new MapConfigurationPropertySource(prefixed)).bindOrCreate("valueguard.query",
				QueryProperties.class);
	}

	/** The settings bound from {@code properties}, with the defaults for everything they leave out. */
	public static ValueGuardProperties of(Map<String, ?> properties) {
		return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate("valueguard",
				ValueGuardProperties.class);
	}

}
