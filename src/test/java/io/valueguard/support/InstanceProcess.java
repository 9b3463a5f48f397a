package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.util.FileSystemUtils;

/**
 * One ValueGuard instance from the packaged jar, in a process of its own that tests may kill (SIGKILL), pause
 * (SIGSTOP) and restart on the same port, name and state directory, or on a wiped one.
 */
public final class InstanceProcess implements AutoCloseable {

	private final String name;

	private final int port = FreePorts.next();

	private final Path stateDir;

	private final Path logFile;

	private final String bootstrapServers;

	private final List<String> arguments;

	private final ApiClient api;

	private Process process;

	private int starts;

	private boolean paused;

	/** Fault tests run several instances on two cores: small heaps, the quick compiler only. */
	private List<String> jvmOptions = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

	/**
	 * @param arguments Spring Boot arguments beyond the port, the broker, the instance name and the state directory
	 */
	private java.io.@Nullable File jar;

	private Map<String, String> environment = Map.of();

	public InstanceProcess(String name, Path workDir, String bootstrapServers, List<String> arguments) {
		this.name = name;
		this.stateDir = workDir.resolve(name + "-state");
		this.logFile = workDir.resolve(name + ".log");
		this.bootstrapServers = bootstrapServers;
		this.arguments = new ArrayList<>(List.of("--server.port=" + this.port,
				"--spring.kafka.bootstrap-servers=" + bootstrapServers, "--valueguard.embedded-kafka.enabled=false",
				"--valueguard.instance-name=" + name, "--valueguard.state-dir=" + this.stateDir));
		this.arguments.addAll(arguments);
		this.api = new ApiClient(this.port);
	}

	/** Another build's packaged jar instead of this one's, as a benchmark compares them. */
	public InstanceProcess jar(java.io.File jar) {
		this.jar = jar;
		return this;
	}

	/** JVM options instead of the fault tests' small ones, as for a benchmark. */
	public InstanceProcess jvmOptions(String... options) {
		this.jvmOptions = List.of(options);
		return this;
	}

	/** Environment variables beside the inherited ones, such as glibc's {@code MALLOC_ARENA_MAX}. */
	public InstanceProcess environment(Map<String, String> environment) {
		this.environment = Map.copyOf(environment);
		return this;
	}

	public String name() {
		return this.name;
	}

	public String bootstrapServers() {
		return this.bootstrapServers;
	}

	/** The process id of the running instance. */
	public long pid() {
		return this.process.pid();
	}

	public int port() {
		return this.port;
	}

	public ApiClient api() {
		return this.api;
	}

	/** Where the instance keeps its state stores. */
	public Path stateDir() {
		return this.stateDir;
	}

	public Path logFile() {
		return this.logFile;
	}

	public InstanceProcess start() {
		try {
			Files.writeString(this.logFile, "--- start " + (++this.starts) + "\n", java.nio.file.StandardOpenOption.CREATE,
					java.nio.file.StandardOpenOption.APPEND);
			List<String> command = new ArrayList<>(List.of(ChildJvm.java()));
			command.addAll(this.jvmOptions);
			command.addAll(List.of("-jar", ((this.jar != null) ? this.jar : ChildJvm.applicationJar()).getPath()));
			command.addAll(this.arguments);
			ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
				.redirectOutput(ProcessBuilder.Redirect.appendTo(this.logFile.toFile()));
			builder.environment().putAll(this.environment);
			this.process = builder.start();
			this.paused = false;
			return this;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** SIGKILL: no shutdown hook, open transactions left for the broker to abort. */
	public void kill() {
		Signals.kill(this.process);
	}

	/** Deletes the state directory of a killed instance, as a new pod on a new node would start. */
	public void wipeState() {
		try {
			FileSystemUtils.deleteRecursively(this.stateDir);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	public void pause() {
		Signals.pause(this.process);
		this.paused = true;
	}

	public void resume() {
		Signals.resume(this.process);
		this.paused = false;
	}

	/** Alive and not paused: it can be asked. */
	public boolean answering() {
		return this.process != null && this.process.isAlive() && !this.paused;
	}

	public boolean alive() {
		return this.process != null && this.process.isAlive();
	}

	public boolean ready() {
		if (!answering()) {
			return false;
		}
		try {
			return this.api.get("/actuator/health/readiness").status() == 200;
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	/**
	 * Appends to the instance's log what it answers for its readiness now and every thread's stack: what a test that
	 * gave up waiting for it leaves to read. Nothing for an instance that is not answering.
	 */
	public void describeToLog(String why) {
		if (!answering()) {
			return;
		}
		String readiness;
		try {
			ApiClient.Reply reply = this.api.get("/actuator/health/readiness");
			readiness = reply.status() + " " + reply.body();
		}
		catch (RuntimeException ex) {
			readiness = "no answer: " + ex;
		}
		try {
			Files.writeString(this.logFile, "--- " + why + " at " + java.time.Instant.now() + "; readiness: "
					+ readiness + "; thread dump follows\n", java.nio.file.StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		Signals.dumpThreads(this.process);
	}

	/** Everything the instance logged, over all its starts. */
	public String log() {
		try {
			return Files.readString(this.logFile);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** SIGTERM, and waits for the graceful shutdown (which also writes a flight recording started with the JVM). */
	public void stop() throws InterruptedException {
		this.process.destroy();
		if (!this.process.waitFor(2, java.util.concurrent.TimeUnit.MINUTES)) {
			throw new IllegalStateException(this.name + " did not stop within 2 minutes, see " + this.logFile);
		}
	}

	@Override
	public void close() {
		if (this.process != null) {
			if (this.paused) {
				Signals.resume(this.process);
			}
			this.process.destroyForcibly();
		}
	}

}
