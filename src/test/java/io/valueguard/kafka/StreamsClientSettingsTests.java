package io.valueguard.kafka;

import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamsClientSettingsTests {

	@Test
	void shouldLetSendsWaitForMetadataAsLongAsAnOutageIsWaitedOut() {
		Properties defaults = new Properties();
		StreamsClientSettings.outlastOutagesWhenSending(defaults);

		Properties raised = new Properties();
		raised.put("task.timeout.ms", "900000");
		StreamsClientSettings.outlastOutagesWhenSending(raised);

		assertThat(defaults.getProperty("producer.max.block.ms")).isEqualTo("300000");
		assertThat(raised.getProperty("producer.max.block.ms")).isEqualTo("900000");
	}

	@Test
	void shouldKeepAnExplicitMaxBlock() {
		Properties configuration = new Properties();
		configuration.put("producer.max.block.ms", "1000");
		StreamsClientSettings.outlastOutagesWhenSending(configuration);

		assertThat(configuration.getProperty("producer.max.block.ms")).isEqualTo("1000");
	}

	@Test
	void shouldRetryATransactionThatMetTheLastOneSoonerThanAfterAWholeCommitInterval() {
		Properties defaults = new Properties();
		StreamsClientSettings.retryTransactionsSoon(defaults);

		assertThat(defaults.getProperty("producer.retry.backoff.ms")).isEqualTo("10");
	}

	@Test
	void shouldKeepAnExplicitRetryBackoff() {
		Properties forProducers = new Properties();
		forProducers.put("producer.retry.backoff.ms", "50");
		StreamsClientSettings.retryTransactionsSoon(forProducers);
		Properties forAllClients = new Properties();
		forAllClients.put("retry.backoff.ms", "200");
		StreamsClientSettings.retryTransactionsSoon(forAllClients);

		assertThat(forProducers.getProperty("producer.retry.backoff.ms")).isEqualTo("50");
		assertThat(forAllClients).doesNotContainKey("producer.retry.backoff.ms");
	}

}
