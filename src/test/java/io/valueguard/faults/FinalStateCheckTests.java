package io.valueguard.faults;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class FinalStateCheckTests {

	private static final String DEATH = "2026-12-03T22:33:38.100Z  WARN 1 --- [valueguard] [-StreamThread-1] "
			+ "i.valueguard.kafka.StreamThreadFailures  : A stream thread of valueguard-keys was fenced from its "
			+ "consumer group";

	private static final String CHATTER = "2026-12-03T22:33:39.343Z  WARN 1 --- [valueguard] [read-1-producer] "
			+ "o.a.k.clients.producer.internals.Sender  : Got error produce response, retrying";

	private static final String TRANSITION = "2026-12-03T22:33:39.400Z  INFO 1 --- [valueguard] [-StreamThread-1] "
			+ "org.apache.kafka.streams.KafkaStreams    : stream-client [valueguard-keys] State transition from "
			+ "PENDING_ERROR to ERROR";

	@Test
	void shouldShowWhyAClientReachedErrorWithoutTheChatterAroundIt() {
		String log = String.join("\n", CHATTER, DEATH, CHATTER, "Caused by: FencedInstanceIdException: fenced",
				CHATTER, TRANSITION, CHATTER);

		assertThat(FinalStateCheck.clientFailures(log))
			.containsExactly(String.join("\n", DEATH, "Caused by: FencedInstanceIdException: fenced", TRANSITION));
	}

	@Test
	void shouldFindNothingInALogWhereNoClientFailed() {
		assertThat(FinalStateCheck.clientFailures(String.join("\n", CHATTER, DEATH, CHATTER))).isEmpty();
	}

}
