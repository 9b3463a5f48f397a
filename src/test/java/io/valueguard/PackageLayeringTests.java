package io.valueguard;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dependencies between ValueGuard's packages point one way, in the order a claim travels: the bottom
 * ({@code system}), the messages the stages send each other, the two stages, then what serves them (Kafka
 * lifecycle, metrics, queries), and the wiring at the root. A new upward import fails here, with its file named.
 */
class PackageLayeringTests {

	/** Each package and the packages it may use; the root package may use all. */
	private static final Map<String, Set<String>> ALLOWED = Map.of(
			"system", Set.of(),
			"messages", Set.of("system"),
			"claims", Set.of("system", "messages"),
			"owners", Set.of("system", "messages"),
			"kafka", Set.of("system"),
			"metrics", Set.of("system", "messages", "claims", "owners", "kafka"),
			"query", Set.of("system", "messages", "claims", "owners", "kafka"));

	private static final Pattern REFERENCE = Pattern.compile("\\bio\\.valueguard\\.([a-z]+)\\.");

	@Test
	void shouldOnlyDependDownwards() throws IOException {
		Path main = Path.of("src/main/java/io/valueguard");
		Map<String, Set<String>> violations = new TreeMap<>();
		try (Stream<Path> files = Files.walk(main)) {
			for (Path file : files.filter((path) -> path.toString().endsWith(".java")).toList()) {
				Path relative = main.relativize(file);
				if (relative.getNameCount() == 1) {
					continue;
				}
				String from = relative.getName(0).toString();
				assertThat(ALLOWED).as("layer of package %s (add it to ALLOWED)", from).containsKey(from);
				Matcher matcher = REFERENCE.matcher(Files.readString(file));
				while (matcher.find()) {
					String to = matcher.group(1);
					if (!to.equals(from) && !ALLOWED.get(from).contains(to)) {
						violations.computeIfAbsent(relative.toString(), (ignored) -> new TreeSet<>()).add(to);
					}
				}
			}
		}
		assertThat(violations).as("upward or sideways package dependencies").isEmpty();
	}

	@Test
	void shouldListEveryPackageOfMain() throws IOException {
		try (Stream<Path> entries = Files.list(Path.of("src/main/java/io/valueguard"))) {
			List<String> packages = entries.filter(Files::isDirectory).map((path) -> path.getFileName().toString()).toList();
			assertThat(ALLOWED.keySet()).containsExactlyInAnyOrderElementsOf(packages);
		}
	}

}
