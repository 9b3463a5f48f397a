package io.valueguard.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.valueguard.support.GcLog;
import io.valueguard.support.InstanceProcess;
import org.slf4j.LoggerFactory;

/**
 * What every benchmark gives the packaged service it starts, how it sees the service start processing, and what it
 * leaves on disk.
 */
final class BenchInstances {

	/**
	 * More arguments for every ValueGuard instance a benchmark starts, space-separated, to try a setting:
	 * {@code -Dvalueguard.bench.valueguard-arguments=--spring.cloud.stream...=...}.
	 */
	static final List<String> EXTRA_ARGUMENTS = spaceSeparated("valueguard.bench.valueguard-arguments");

	/**
	 * Environment variables for every ValueGuard instance a benchmark starts, space-separated {@code NAME=value}:
	 * {@code -Dvalueguard.bench.valueguard-environment=MALLOC_ARENA_MAX=2}. Not the broker's, nor the load
	 * generator's: set in the shell, a variable such as glibc's reaches every JVM of the run.
	 */
	static final Map<String, String> EXTRA_ENVIRONMENT = variables("valueguard.bench.valueguard-environment");

	/**
	 * More JVM options for every ValueGuard instance a benchmark starts, space-separated, after
	 * {@code valueguard.bench.jvm-options} (which every application gets, the plain table's too):
	 * {@code -Dvalueguard.bench.valueguard-jvm-options="-XX:GCTimeRatio=4 ..."}, to try what a deployment would give the
	 * service without changing its baseline.
	 */
	private static final List<String> EXTRA_VALUEGUARD_JVM_OPTIONS = spaceSeparated(
			"valueguard.bench.valueguard-jvm-options");

	private static final boolean JFR = Boolean.getBoolean("valueguard.bench.jfr");

	/**
	 * Whether a run is profiled from outside with {@code perf record}, native code included: each application then
	 * writes its compiled methods' symbols for {@code perf} when it exits, and the benchmark names its threads beside
	 * the report, for {@code scripts/perf-summary.py} (docs/benchmarks.md, "Where a claim's time goes").
	 */
	static final boolean PERF = Boolean.getBoolean("valueguard.bench.perf");

	/**
	 * More JVM options for every application a benchmark starts, space-separated: to look inside one, as
	 * {@code -Dvalueguard.bench.jvm-options=-XX:NativeMemoryTracking=summary} and {@code jcmd <pid>
	 * VM.native_memory summary} while it runs.
	 */
	private static final List<String> EXTRA_JVM_OPTIONS = spaceSeparated("valueguard.bench.jvm-options");

	private BenchInstances() {
	}

	/** A system property's space-separated items, none when it is unset. */
	static List<String> spaceSeparated(String property) {
		return items(System.getProperty(property, ""));
	}

	/** The space-separated items of a text, none when it is blank. */
	static List<String> items(String text) {
		return Arrays.stream(text.split(" ")).filter((item) -> !item.isBlank()).toList();
	}

	/** A system property's space-separated {@code NAME=value} items, in order; the last of a name wins. */
	static Map<String, String> variables(String property) {
		Map<String, String> variables = new LinkedHashMap<>();
		for (String variable : spaceSeparated(property)) {
			String[] pair = variable.split("=", 2);
			variables.put(pair[0], (pair.length > 1) ? pair[1] : "");
		}
		return variables;
	}

	/**
	 * A new folder for one run's report, logs and data, {@code target/benchmark/<kind><time>}; the benchmark's own
	 * logging turned down to warnings, so that its console shows the report.
	 */
	static Path workDirectory(String kind) throws IOException {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		Path work = Path.of("target", "benchmark",
				kind + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
		return Files.createDirectories(work);
	}

	/**
	 * JVM options of an application under test: a 1 GiB heap, any {@code valueguard.bench.jvm-options}, a GC log
	 * beside the report ({@link #gcLogFile}), a flight recording there too when {@code -Dvalueguard.bench.jfr=true}
	 * asks for one, and its symbols for {@code perf} when {@code -Dvalueguard.bench.perf=true} does.
	 */
	static List<String> jvmOptions(Path work, String name) {
		List<String> options = jvmOptions();
		// a handful of lines per second at most: cheap enough to keep for every run, so that a figure about the
		// collector comes from the run it explains
		options.add(GcLog.option(gcLogFile(work, name)));
		if (PERF) {
			options.add("-XX:+UnlockDiagnosticVMOptions");
			options.add("-XX:+DumpPerfMapAtExit");
		}
		if (JFR) {
			// deep enough for a record's whole path from the poll loop to the sink; JFR's default of 64 frames cuts it
			options.add("-XX:FlightRecorderOptions:stackdepth=256");
			options.add("-XX:StartFlightRecording=settings=profile,dumponexit=true,filename="
					+ recordingFile(work, name).toAbsolutePath());
		}
		return options;
	}

	/** The flight recording of the application {@code name}, beside the report, when one is asked for. */
	static Path recordingFile(Path work, String name) {
		return work.resolve(name + ".jfr");
	}

	/** The GC log of the application {@code name}, beside the report. */
	static Path gcLogFile(Path work, String name) {
		return work.resolve(name + "-gc.log");
	}

	/** JVM options of an application under test, without a recording: a 1 GiB heap and any given ones. */
	static List<String> jvmOptions() {
		List<String> options = new ArrayList<>(List.of("-Xmx1g"));
		options.addAll(EXTRA_JVM_OPTIONS);
		return options;
	}

	/** JVM options of a ValueGuard instance: {@link #jvmOptions(Path, String)} and any ValueGuard-only ones. */
	static List<String> valueGuardJvmOptions(Path work, String name) {
		List<String> options = jvmOptions(work, name);
		options.addAll(EXTRA_VALUEGUARD_JVM_OPTIONS);
		return options;
	}

	/** JVM options of a ValueGuard instance, without a recording: {@link #jvmOptions()} and ValueGuard-only ones. */
	static List<String> valueGuardJvmOptions() {
		List<String> options = jvmOptions();
		options.addAll(EXTRA_VALUEGUARD_JVM_OPTIONS);
		return options;
	}

	/** Arguments of an instance whose topics all start with {@code prefix}, reading {@code claims}. */
	static List<String> arguments(String prefix, String claims, int partitions, String... more) {
		List<String> arguments = new ArrayList<>(List.of("--valueguard.application-id=" + prefix,
				"--valueguard.topics.claims=" + claims, "--valueguard.topics.bindings=" + prefix + ".bindings",
				"--valueguard.topics.evictions=" + prefix + ".evictions", "--valueguard.topics.dlq=" + prefix + ".dlq",
				"--valueguard.topics.partitions=" + partitions,
				// the benchmarks watch for the key stage's client turning RUNNING
				"--logging.level.org.apache.kafka.streams.KafkaStreams=INFO"));
		arguments.addAll(Arrays.asList(more));
		return arguments;
	}

	/** Processing starts when the key stage's client is RUNNING. */
	static boolean running(InstanceProcess instance, String prefix) {
		return instance.log()
			.lines()
			.anyMatch((line) -> line.contains("[" + prefix + "-keys-") && line.contains("to RUNNING"));
	}

	/**
	 * Deletes what a run's broker and applications kept on disk: every folder in the run's folder (broker data, state
	 * directories; gigabytes after a run of a million claims). Reports, logs and flight recordings stay.
	 */
	static void dropData(Path work) throws IOException {
		try (var entries = Files.list(work)) {
			for (Path folder : entries.filter(Files::isDirectory).toList()) {
				try (var tree = Files.walk(folder)) {
					for (Path path : tree.sorted(Comparator.reverseOrder()).toList()) {
						Files.delete(path);
					}
				}
			}
		}
	}

}
