package io.valueguard.faults;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ClientErrorsTests {

	private static final String CHATTER = line("WARN", "o.a.k.clients.producer.internals.Sender",
			"Got error produce response, retrying");

	private static final String FENCED = line("WARN", "i.valueguard.kafka.StreamThreadFailures",
			"A stream thread of valueguard-keys was fenced from its consumer group: another member joined with its "
					+ "static id");

	private static final String DIED = line("WARN", "i.valueguard.kafka.StreamThreadFailures",
			"A stream thread of valueguard-keys died of a fatal error; shutting the client down to restart it");

	private static final String KEYS_ERROR = transition("valueguard-keys");

	private static final String SUPERVISOR = line("WARN", "io.valueguard.kafka.StreamsSupervisor",
			"Kafka Streams client valueguard-keys failed (ERROR); restarting it in PT1S");

	private static final String KEYS_RUNNING = line("INFO", "io.valueguard.kafka.StreamsSupervisor",
			"Kafka Streams client valueguard-keys is RUNNING again after 1 restart(s)");

	@Test
	void shouldShowWhyAClientReachedErrorWithoutTheChatterAroundIt() {
		ClientErrors errors = ClientErrors.in(String.join("\n", CHATTER, DIED, CHATTER,
				"Caused by: java.lang.OutOfMemoryError: Java heap space", CHATTER, KEYS_ERROR, CHATTER));

		assertThat(errors.failures())
			.containsExactly(String.join("\n", DIED, "Caused by: java.lang.OutOfMemoryError: Java heap space",
					KEYS_ERROR));
		assertThat(errors.fences()).isEmpty();
	}

	@Test
	void shouldExcuseAFencedClientThatRanAgain() {
		ClientErrors errors = ClientErrors.in(String.join("\n", FENCED, CHATTER, KEYS_ERROR, SUPERVISOR, KEYS_RUNNING));

		assertThat(errors.failures()).isEmpty();
		assertThat(errors.fences()).containsExactly(KEYS_ERROR);
	}

	@Test
	void shouldFailAFencedClientThatNeverRanAgain() {
		ClientErrors errors = ClientErrors.in(String.join("\n", FENCED, KEYS_ERROR, SUPERVISOR));

		assertThat(errors.failures()).singleElement().asString().endsWith("(fenced, and never RUNNING again)");
	}

	@Test
	void shouldNotLetOneClientsFenceExcuseTheOthersError() {
		ClientErrors errors = ClientErrors.in(
				String.join("\n", FENCED, transition("valueguard-values"), KEYS_ERROR, KEYS_RUNNING));

		assertThat(errors.failures()).singleElement().asString().endsWith(transition("valueguard-values"));
		assertThat(errors.fences()).containsExactly(KEYS_ERROR);
	}

	@Test
	void shouldNotExcuseAnErrorAfterAFenceWhenAThreadDiedOtherwiseSince() {
		ClientErrors errors = ClientErrors.in(String.join("\n", FENCED, DIED, KEYS_ERROR, KEYS_RUNNING));

		assertThat(errors.failures()).singleElement().asString().endsWith(KEYS_ERROR);
	}

	@Test
	void shouldFindNothingInALogWhereNoClientFailed() {
		ClientErrors errors = ClientErrors.in(String.join("\n", CHATTER, FENCED.replace("was fenced from", "died;"),
				CHATTER, "--- start 2", CHATTER));

		assertThat(errors.failures()).isEmpty();
		assertThat(errors.fences()).isEmpty();
	}

	private static String transition(String applicationId) {
		return line("INFO", "org.apache.kafka.streams.KafkaStreams", "stream-client [" + applicationId
				+ "-431cdfbc-779d-4662-a468-4fdbeee9caa5] State transition from PENDING_ERROR to ERROR");
	}

	/** A line as Spring Boot's console format writes it in an instance's log. */
	private static String line(String level, String logger, String message) {
		return "2026-12-03T22:33:39.343Z  " + level + " 1 --- [valueguard] [-StreamThread-1] " + logger + " : "
				+ message;
	}

}
