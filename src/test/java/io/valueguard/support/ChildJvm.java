package io.valueguard.support;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What child JVMs of tests run: this JVM's java, and the packaged application. */
public final class ChildJvm {

	private ChildJvm() {
	}

	public static String java() {
		return Path.of(System.getProperty("java.home"), "bin", "java").toString();
	}

	/** The application jar that {@code ./mvnw verify} packaged before the integration tests. */
	public static File applicationJar() {
		try (var files = Files.list(Path.of("target"))) {
			return files.filter((file) -> file.getFileName().toString().matches("valueguard-.*\\.jar"))
				.findFirst()
				.orElseThrow(() -> new IllegalStateException("no packaged jar in target/: run ./mvnw verify"))
				.toFile();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
