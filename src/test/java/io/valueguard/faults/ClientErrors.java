package io.valueguard.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an instance's log says about its streams clients reaching ERROR. One cause is expected: a stream thread fenced
 * from its consumer group, which the service answers by restarting the client in place (docs/design.md). Under broker
 * stalls a lone static member can fence itself: after a {@code TaskMigratedException} Kafka Streams unsubscribes and
 * rejoins without its member id, and when an abandoned join of that member reaches the coordinator after the one
 * it answers, the later one takes the static id (KAFKA-20985, in Kafka 4.1.2's client). Such a client must be
 * RUNNING again afterwards. Every other way to ERROR is a failure, shown with the lines that explain it: an
 * assertion on the whole log would print only its tail, which a CI log cuts.
 * @param failures each ERROR that was not a fence, or a fenced client that never ran again, with its context
 * @param fences each ERROR after a fence that the client recovered from: its line
 */
record ClientErrors(List<String> failures, List<String> fences) {

	/** How many lines that explain it are shown before each line that says a client reached ERROR. */
	private static final int CONTEXT = 12;

	private static final Pattern DEATH = Pattern.compile("A stream thread of (\\S+) (was fenced from|died)");

	private static final Pattern KAFKA_ERROR = Pattern.compile(
			"stream-client \\[(\\S+)-[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\\] State transition from \\S+ to ERROR");

	private static final Pattern SUPERVISOR_ERROR = Pattern.compile("Kafka Streams client (\\S+) failed \\(ERROR\\)");

	private static final Pattern RUNNING_AGAIN = Pattern.compile("Kafka Streams client (\\S+) is RUNNING again");

	/** Reads one instance's log, restarts of its process included. */
	static ClientErrors in(String log) {
		List<String> lines = log.lines().toList();
		List<String> failures = new ArrayList<>();
		List<String> fences = new ArrayList<>();
		// by application id: whether its last thread death was a fence, and its fenced ERROR not yet recovered from
		Map<String, Boolean> lastDeathFenced = new HashMap<>();
		Map<String, Integer> awaitingRecovery = new LinkedHashMap<>();
		for (int i = 0; i < lines.size(); i++) {
			String line = lines.get(i);
			Matcher death = DEATH.matcher(line);
			Matcher running = RUNNING_AGAIN.matcher(line);
			if (line.startsWith("--- start ")) {
				// a new process: what the old one still owed died with it
				lastDeathFenced.clear();
				awaitingRecovery.clear();
			}
			else if (death.find()) {
				lastDeathFenced.put(death.group(1), death.group(2).startsWith("was fenced"));
			}
			else if (running.find()) {
				Integer fenced = awaitingRecovery.remove(running.group(1));
				if (fenced != null) {
					fences.add(lines.get(fenced));
				}
			}
			else if (line.contains("to ERROR") || line.contains("failed (ERROR)")) {
				String client = client(line);
				if (client != null && lastDeathFenced.getOrDefault(client, false)) {
					awaitingRecovery.putIfAbsent(client, i);
				}
				else {
					failures.add(context(lines, i));
				}
			}
		}
		awaitingRecovery.values()
			.forEach((i) -> failures.add(context(lines, i) + "\n(fenced, and never RUNNING again)"));
		return new ClientErrors(List.copyOf(failures), List.copyOf(fences));
	}

	private static String client(String line) {
		Matcher kafka = KAFKA_ERROR.matcher(line);
		if (kafka.find()) {
			return kafka.group(1);
		}
		Matcher supervisor = SUPERVISOR_ERROR.matcher(line);
		return supervisor.find() ? supervisor.group(1) : null;
	}

	/** The line, after the errors, ValueGuard's own lines and the causes of stack traces before it. */
	private static String context(List<String> lines, int at) {
		List<String> context = new ArrayList<>();
		for (int j = at - 1; j >= 0 && context.size() < CONTEXT; j--) {
			if (explains(lines.get(j))) {
				context.add(0, abbreviate(lines.get(j)));
			}
		}
		context.add(abbreviate(lines.get(at)));
		return String.join("\n", context);
	}

	/** Errors, ValueGuard's own lines (thread deaths, restarts) and the causes of stack traces; not client chatter. */
	private static boolean explains(String line) {
		return line.contains(" ERROR ") || line.contains(" i.valueguard.") || line.contains(" io.valueguard.")
				|| line.startsWith("Caused by:");
	}

	private static String abbreviate(String line) {
		return (line.length() > 600) ? line.substring(0, 600) + " ..." : line;
	}

}
