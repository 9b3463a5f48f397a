package io.valueguard.metrics;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.valueguard.support.PromQlNames;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The alert rules are valid Prometheus rules and every alert is unit-tested with promtool (Debian package
 * {@code prometheus}; {@code .ci/run} installs it). Without promtool the test is skipped locally and fails on CI.
 */
class AlertRulesTests {

	@Test
	void shouldPassPromtoolCheck() throws Exception {
		assertThat(promtool("check", "rules", PromQlNames.rules().toString())).contains("SUCCESS: 16 rules found");
	}

	@Test
	void shouldFireEveryAlertInPromtoolUnitTests() throws Exception {
		Path tests = PromQlNames.rules().getParent().resolve("tests").resolve("valueguard-alerts-test.yaml");
		assertThat(promtool("test", "rules", tests.toString())).contains("SUCCESS");
	}

	private static String promtool(String... arguments) throws IOException, InterruptedException {
		boolean installed = List.of(System.getenv("PATH").split(java.io.File.pathSeparator))
			.stream()
			.anyMatch((dir) -> Path.of(dir, "promtool").toFile().canExecute());
		if (!installed) {
			assertThat(System.getenv("CI")).as("promtool must be installed on CI (.ci/run installs prometheus)")
				.isNull();
			assumeTrue(false, "promtool is not installed (apt-get install prometheus)");
		}
		List<String> command = new java.util.ArrayList<>(List.of("promtool"));
		command.addAll(List.of(arguments));
		Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
		String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
		assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
		assertThat(process.exitValue()).as(output).isZero();
		return output;
	}

}
