package io.valueguard.kafka;

import java.util.Properties;

import io.valueguard.support.TestProperties;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.mock.env.MockEnvironment;

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

	@Test
	void shouldCloseTheStagesAfterTheWebServerHasDrainedItsRequests() {
		MockEnvironment environment = new MockEnvironment().withProperty(
				"spring.cloud.stream.kafka.streams.binder.configuration.application.server", "localhost:8080");
		StreamsClientSettings settings = new StreamsClientSettings(TestProperties.defaults(), environment,
				new StreamThreadFailures(TestProperties.defaults()), new StaticListableBeanFactory()
					.getBeanProvider(KafkaStreamsCustomizer.class), new LocalStateOrigin("cluster", "claims"));
		StreamsBuilderFactoryBean factoryBean = new StreamsBuilderFactoryBean();
		assertThat(factoryBean.getPhase()).as("Spring Kafka's own").isGreaterThan(
				WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);

		settings.configure(factoryBean);

		// Spring stops the higher phase first: the server's drain, then the stages
		assertThat(factoryBean.getPhase()).isLessThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE)
			.isGreaterThan(WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE);
	}

}
