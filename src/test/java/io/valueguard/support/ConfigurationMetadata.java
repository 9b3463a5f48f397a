package io.valueguard.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The configuration metadata that spring-boot-configuration-processor generates from the settings records: what IDEs
 * complete and document. Read from the compiled classes, so a test sees what the build just wrote.
 */
public final class ConfigurationMetadata {

	private static final Path GENERATED = Path.of("target", "classes", "META-INF",
			"spring-configuration-metadata.json");

	/** A setting: its name, Java type, description and default as the metadata has them. */
	public record Property(String name, String type, String description, String defaultValue) {

	}

	private final Map<String, Property> properties = new HashMap<>();

	private ConfigurationMetadata(JsonNode metadata) {
		for (JsonNode property : metadata.path("properties")) {
			String name = property.path("name").asString();
			this.properties.put(name, new Property(name, property.path("type").asString(""),
					property.path("description").asString(""), property.path("defaultValue").asString("")));
		}
	}

	public static ConfigurationMetadata generated() {
		try {
			return new ConfigurationMetadata(JsonMapper.builder().build().readTree(Files.readString(GENERATED)));
		}
		catch (IOException ex) {
			throw new IllegalStateException("No configuration metadata at " + GENERATED + ": compile first", ex);
		}
	}

	public Map<String, Property> properties() {
		return this.properties;
	}

	/**
	 * True when the metadata describes the setting: the property itself with a description, or an entry of a map-typed
	 * property that has one ({@code valueguard.security.basic.users.<name>}).
	 */
	public boolean describes(String name) {
		Property property = this.properties.get(name);
		if (property != null) {
			return !property.description().isBlank();
		}
		return this.properties.values()
			.stream()
			.anyMatch((map) -> map.type().startsWith("java.util.Map") && name.startsWith(map.name() + ".")
					&& !map.description().isBlank());
	}

	/** True when an environment variable sets a described setting, by Spring Boot's relaxed binding. */
	public boolean describesEnvironmentVariable(String variable) {
		return this.properties.values()
			.stream()
			.anyMatch((property) -> environmentVariables(property.name()).contains(variable)
					&& !property.description().isBlank());
	}

	/**
	 * The environment variables Spring Boot binds to a property: dots to underscores, upper case, and the dashes
	 * dropped (the canonical form) or, as its relaxed binding also takes, turned to underscores.
	 */
	static Set<String> environmentVariables(String property) {
		String upper = property.replace('.', '_').toUpperCase(Locale.ROOT);
		return new HashSet<>(List.of(upper.replace("-", ""), upper.replace('-', '_')));
	}

}
