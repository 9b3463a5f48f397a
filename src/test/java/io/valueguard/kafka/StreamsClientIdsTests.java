package io.valueguard.kafka;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamsClientIdsTests {

	private static final String PROCESS = "6f3b1cc3-c958-4e23-8913-d881141468a8";

	@Test
	void shouldNameTheProcessOfAStreamThreadsProducerAndConsumer() {
		assertThat(StreamsClientIds.processOfProducer("valueguard-keys", "valueguard-keys-" + PROCESS + "-1"))
			.isEqualTo(PROCESS);
		assertThat(StreamsClientIds.processOfProducer("valueguard-keys", "valueguard-keys-" + PROCESS + "-12"))
			.isEqualTo(PROCESS);
		assertThat(StreamsClientIds.processOfConsumer("valueguard-keys",
				"valueguard-keys-" + PROCESS + "-StreamThread-2-consumer"))
			.isEqualTo(PROCESS);
	}

	@Test
	void shouldNameNoProcessForOtherClients() {
		// another stage, another deployment whose id begins like this one's, a plain producer, a hand-set client.id
		assertThat(StreamsClientIds.processOfProducer("valueguard-keys", "valueguard-values-" + PROCESS + "-1"))
			.isNull();
		assertThat(StreamsClientIds.processOfProducer("valueguard-keys", "valueguard-keys-eu-keys-" + PROCESS + "-1"))
			.isNull();
		assertThat(StreamsClientIds.processOfProducer("valueguard-keys", "valueguard-keys-importer")).isNull();
		assertThat(StreamsClientIds.processOfConsumer("valueguard-keys",
				"valueguard-keys-" + PROCESS + "-StateUpdater-1-restore-consumer"))
			.isNull();
		assertThat(StreamsClientIds.processOfConsumer("valueguard-keys", "keys-on-vg-1-StreamThread-1-consumer"))
			.isNull();
		assertThat(StreamsClientIds.processOfConsumer("valueguard-keys", "valueguard-keys-" + PROCESS + "-1"))
			.isNull();
	}

}
