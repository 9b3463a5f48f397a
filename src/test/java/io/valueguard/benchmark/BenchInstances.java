package io.valueguard.benchmark;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.valueguard.support.InstanceProcess;

/** What every benchmark gives the packaged service it starts, and how it sees the service start processing. */
final class BenchInstances {

	private BenchInstances() {
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

}
