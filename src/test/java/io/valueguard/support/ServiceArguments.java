package io.valueguard.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Command-line arguments that start a ValueGuard instance against a test broker, on topics of its own. */
public final class ServiceArguments {

	private ServiceArguments() {
	}

	/**
	 * One partition per topic, every topic and the application id named after {@code id}, so that tests sharing a
	 * broker do not meet; {@code more} arguments after those.
	 */
	public static String[] onTopicsOf(String id, String bootstrapServers, Path state, int port, String... more) {
		List<String> arguments = new ArrayList<>(List.of("--server.port=" + port,
				"--spring.kafka.bootstrap-servers=" + bootstrapServers, "--valueguard.embedded-kafka.enabled=false",
				"--valueguard.topics.partitions=1", "--valueguard.state-dir=" + state,
				"--valueguard.application-id=" + id, "--valueguard.topics.claims=" + id + ".claims",
				"--valueguard.topics.bindings=" + id + ".bindings", "--valueguard.topics.evictions=" + id + ".evictions",
				"--valueguard.topics.dlq=" + id + ".dlq"));
		for (String argument : more) {
			// a setting given again replaces the default above: Spring Boot would join both values with a comma
			int equals = argument.indexOf('=');
			if (equals > 0) {
				String setting = argument.substring(0, equals + 1);
				arguments.removeIf((given) -> given.startsWith(setting));
			}
			arguments.add(argument);
		}
		return arguments.toArray(String[]::new);
	}

}
