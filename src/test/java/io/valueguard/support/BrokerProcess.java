package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.apache.kafka.common.Uuid;

import static org.awaitility.Awaitility.await;

/**
 * Kafka in child JVMs ({@link BrokerMain}): one node, or a cluster of several, each of which tests may kill, pause,
 * stop gracefully and restart on its data directory.
 */
public final class BrokerProcess implements AutoCloseable {

	/** One node of the cluster. */
	public static final class Node {

		private final int id;

		private final int port = FreePorts.next();

		private final int controllerPort = FreePorts.next();

		private final Path dataDir;

		private final Path logFile;

		private Process process;

		private int starts;

		Node(int id, Path workDir, String prefix) {
			this.id = id;
			this.dataDir = workDir.resolve(prefix + "-data");
			this.logFile = workDir.resolve(prefix + ".log");
		}

		public int id() {
			return this.id;
		}

	}

	private final List<Node> nodes = new ArrayList<>();

	private final String clusterId = Uuid.randomUuid().toString();

	private List<String> jvmOptions = List.of();

	/** A single broker. */
	public BrokerProcess(Path workDir) {
		this(workDir, 1);
	}

	/** A cluster of {@code size} nodes, each broker and controller. */
	public BrokerProcess(Path workDir, int size) {
		for (int id = 1; id <= size; id++) {
			this.nodes.add(new Node(id, workDir, (size == 1) ? "kafka" : "kafka-" + id));
		}
	}

	/** More options for the brokers' JVMs (a GC log, say); before {@link #start()}. */
	public BrokerProcess jvmOptions(String... options) {
		this.jvmOptions = List.of(options);
		return this;
	}

	public String bootstrapServers() {
		return this.nodes.stream().map((node) -> "localhost:" + node.port).collect(Collectors.joining(","));
	}

	public List<Node> nodes() {
		return this.nodes;
	}

	/** Process id of the first node, for CPU accounting in benchmarks. */
	public long pid() {
		return this.nodes.get(0).process.pid();
	}

	/** Starts every node and waits until each takes connections. */
	public BrokerProcess start() {
		this.nodes.forEach(this::launch);
		this.nodes.forEach(this::awaitStarted);
		return this;
	}

	/** Restarts one node on its data directory and waits until it takes connections. */
	public void start(Node node) {
		launch(node);
		awaitStarted(node);
	}

	public void kill() {
		this.nodes.forEach((node) -> Signals.kill(node.process));
	}

	/** SIGTERM, as a rolling restart stops a broker: it hands its leaderships over and shuts down cleanly. */
	public void stop(Node node) {
		node.process.destroy();
		try {
			if (!node.process.waitFor(120, TimeUnit.SECONDS)) {
				throw new IllegalStateException("broker " + node.id + " did not stop within 120 s");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	public void pause() {
		this.nodes.forEach((node) -> Signals.pause(node.process));
	}

	public void resume() {
		this.nodes.forEach((node) -> Signals.resume(node.process));
	}

	private void launch(Node node) {
		String voters = this.nodes.stream()
			.map((each) -> each.id + "@localhost:" + each.controllerPort)
			.collect(Collectors.joining(","));
		try {
			Files.writeString(node.logFile, "--- start " + (++node.starts) + "\n", StandardOpenOption.CREATE,
					StandardOpenOption.APPEND);
			List<String> command = new ArrayList<>(List.of(ChildJvm.java(), "-Xmx512m"));
			command.addAll(this.jvmOptions);
			command.addAll(List.of("-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(),
					Integer.toString(node.id), Integer.toString(node.port), Integer.toString(node.controllerPort), voters,
					this.clusterId, node.dataDir.toString()));
			node.process = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(node.logFile.toFile()))
				.start();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	private void awaitStarted(Node node) {
		await("broker " + node.id + " up, see " + node.logFile).atMost(Duration.ofSeconds(120))
			.pollInterval(Duration.ofMillis(200))
			.until(() -> {
				if (!node.process.isAlive()) {
					throw new IllegalStateException("broker " + node.id + " exited, see " + node.logFile);
				}
				// this start's part of the log: the coordinators may log after the line, and earlier starts before it
				String log = Files.readString(node.logFile);
				String thisStart = log.substring(log.lastIndexOf("--- start " + node.starts + "\n"));
				return thisStart.contains("BROKER STARTED\n");
			});
	}

	@Override
	public void close() {
		for (Node node : this.nodes) {
			if (node.process != null && node.process.isAlive()) {
				Signals.resume(node.process);
				node.process.destroyForcibly();
			}
		}
	}

}
