package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.awaitility.Awaitility.await;

/** A Kafka broker in a child JVM ({@link BrokerMain}) that tests may kill, restart and pause. */
public final class BrokerProcess implements AutoCloseable {

	private final int port = FreePorts.next();

	private final int controllerPort = FreePorts.next();

	private final Path dataDir;

	private final Path logFile;

	private Process process;

	private int starts;

	public BrokerProcess(Path workDir) {
		this.dataDir = workDir.resolve("kafka-data");
		this.logFile = workDir.resolve("kafka.log");
	}

	public String bootstrapServers() {
		return "localhost:" + this.port;
	}

	/** Starts the broker on its data directory and waits until it takes connections. */
	public BrokerProcess start() {
		try {
			Files.writeString(this.logFile, "--- start " + (++this.starts) + "\n", java.nio.file.StandardOpenOption.CREATE,
					java.nio.file.StandardOpenOption.APPEND);
			this.process = new ProcessBuilder(ChildJvm.java(), "-Xmx512m", "-cp", System.getProperty("java.class.path"),
					BrokerMain.class.getName(), Integer.toString(this.port), Integer.toString(this.controllerPort),
					this.dataDir.toString())
				.redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.logFile.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		await("broker up, see " + this.logFile).atMost(Duration.ofSeconds(90))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				if (!this.process.isAlive()) {
					throw new IllegalStateException("broker exited, see " + this.logFile);
				}
				return Files.readString(this.logFile).endsWith("BROKER STARTED\n");
			});
		return this;
	}

	public void kill() {
		Signals.kill(this.process);
	}

	public void pause() {
		Signals.pause(this.process);
	}

	public void resume() {
		Signals.resume(this.process);
	}

	@Override
	public void close() {
		if (this.process != null) {
			Signals.resume(this.process);
			this.process.destroyForcibly();
		}
	}

}
