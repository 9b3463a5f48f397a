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
 * Dependencies between ValueGuard's packages point one way, in the order a claim travels: the bottom ({@code codec},
 * {@code config}, {@code store}), the messages the stages send each other, the two stages ({@code claims}, then
 * {@code owners}), what runs and watches them ({@code kafka}, {@code metrics}), what finds an entry wherever it lives
 * ({@code routing}), the HTTP API ({@code api}), and the wiring at the root. The laptop broker ({@code kafka.local})
 * stands apart: nothing imports it, Spring starts it by name. A new upward import fails here, with its file named.
 */
class PackageLayeringTests {

	/** Each package and the packages it may use; the root package may use all. */
	private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
			Map.entry("codec", Set.of()),
			Map.entry("config", Set.of()),
			Map.entry("store", Set.of()),
			Map.entry("messages", Set.of("codec", "config")),
			Map.entry("claims", Set.of("codec", "config", "store", "messages")),
			Map.entry("owners", Set.of("codec", "config", "store", "messages")),
			Map.entry("kafka", Set.of("config")),
			Map.entry("kafka.local", Set.of()),
			Map.entry("metrics", Set.of("config", "store", "messages", "claims", "owners", "kafka")),
			Map.entry("routing", Set.of("config", "store", "messages", "claims", "owners", "kafka")),
			Map.entry("api", Set.of("config", "messages", "claims", "owners", "kafka", "routing")),
			Map.entry("security", Set.of("config", "routing")));

	private static final Pattern REFERENCE = Pattern.compile("\\bio\\.valueguard\\.([a-z]+(?:\\.local)?)\\.");

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
				String from = packageOf(relative);
				assertThat(ALLOWED).as("layer of package %s (add it to ALLOWED)", from).containsKey(from);
				// the package line names the file's own package, not a dependency
				Matcher matcher = REFERENCE.matcher(Files.readString(file).replaceFirst("(?m)^package .*$", ""));
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
		Path main = Path.of("src/main/java/io/valueguard");
		try (Stream<Path> entries = Files.walk(main)) {
			List<String> packages = entries.filter(Files::isDirectory)
				.filter((path) -> !path.equals(main))
				.map((path) -> main.relativize(path).toString().replace('/', '.'))
				.toList();
			assertThat(ALLOWED.keySet()).containsExactlyInAnyOrderElementsOf(packages);
		}
	}

	/** The package of a file under main, {@code kafka.local} for the laptop broker. */
	private static String packageOf(Path relative) {
		return relative.getParent().toString().replace('/', '.');
	}

}
