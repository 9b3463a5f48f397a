package io.valueguard.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.valueguard.support.ConfigurationMetadata;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every {@code valueguard.*} setting is in the generated configuration metadata with a description, so that IDEs
 * document it: those of the settings records, and every one the code reads some other way (placeholders in
 * application.yml and annotations, the environment) or the README's configuration table names; and that table names
 * every one. The chart's are checked by HelmChartTests against its rendered output.
 */
class ConfigurationMetadataTests {

	/** A placeholder, {@code ${valueguard.x.y:default}}, or a name read from the environment. */
	private static final Pattern READ = Pattern
		.compile("\\$\\{(valueguard\\.[a-z0-9.-]+)[:}]|getProperty\\(\"(valueguard\\.[a-z0-9.-]+)\"");

	/** A row of the README's configuration tables: the setting first. */
	private static final Pattern DOCUMENTED = Pattern.compile("(?m)^\\| `(valueguard\\.[a-z0-9.-]+)`");

	private final ConfigurationMetadata metadata = ConfigurationMetadata.generated();

	@Test
	void shouldDescribeEverySettingOfTheRecordsWithItsDefault() {
		assertThat(this.metadata.properties().keySet()).filteredOn((name) -> name.startsWith("valueguard."))
			.hasSizeGreaterThan(60)
			.allSatisfy((name) -> assertThat(this.metadata.properties().get(name).description()).as(name)
				.isNotBlank());
		assertThat(this.metadata.properties().get("valueguard.policy").defaultValue()).isEqualTo("latest-wins");
		assertThat(this.metadata.properties().get("valueguard.store.max-compaction-lag").defaultValue())
			.isEqualTo("1d");
	}

	@Test
	void shouldDescribeEverySettingTheCodeReadsOrTheReadmeNames() throws IOException {
		Set<String> read = new TreeSet<>();
		try (Stream<Path> sources = Files.walk(Path.of("src", "main"))) {
			for (Path source : sources.filter(Files::isRegularFile).toList()) {
				Matcher matcher = READ.matcher(Files.readString(source));
				while (matcher.find()) {
					read.add((matcher.group(1) != null) ? matcher.group(1) : matcher.group(2));
				}
			}
		}
		Set<String> documented = new TreeSet<>();
		String readme = Files.readString(Path.of("README.md"));
		// the Configuration section, its subsections included (the topics table names topics, not settings)
		String configuration = readme.substring(readme.indexOf("\n## Configuration"));
		configuration = configuration.substring(0, configuration.indexOf("\n## ", 1));
		Matcher rows = DOCUMENTED.matcher(configuration);
		while (rows.find()) {
			documented.add(rows.group(1));
		}

		assertThat(read).as("settings read by the code").hasSizeGreaterThan(10)
			.allSatisfy((name) -> assertThat(this.metadata.describes(name)).as(name).isTrue());
		assertThat(documented).as("settings in the README").hasSizeGreaterThan(40)
			.allSatisfy((name) -> assertThat(this.metadata.describes(name)).as(name).isTrue());
		// and the other way round: the README's table leaves out no setting
		assertThat(this.metadata.properties().keySet()).filteredOn((name) -> name.startsWith("valueguard."))
			.allSatisfy((name) -> assertThat(documented).as("README's Configuration section").contains(name));
	}

}
