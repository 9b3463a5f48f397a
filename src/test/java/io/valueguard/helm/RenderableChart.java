package io.valueguard.helm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A copy of a chart that {@code helm template} renders whole: its test hook an ordinary Pod (helm template leaves hooks
 * out) and without Chart.yaml's kubeVersion, since helm-java's template assumes Kubernetes 1.20 and takes no other.
 */
final class RenderableChart {

	private RenderableChart() {
	}

	/** Copies {@code chart} into {@code copies}, as a directory named {@code valueguard}. */
	static Path copyOf(Path chart, Path copies) {
		try {
			Path copy = copies.resolve("valueguard");
			try (var files = Files.walk(chart)) {
				for (Path file : files.toList()) {
					Path target = copy.resolve(chart.relativize(file).toString());
					if (Files.isDirectory(file)) {
						Files.createDirectories(target);
					}
					else {
						Files.writeString(target, Files.readString(file)
							.replace("helm.sh/hook: test", "test-hook: test")
							.replaceAll("(?m)^kubeVersion: .*$", ""));
					}
				}
			}
			return copy;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
