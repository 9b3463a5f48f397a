package io.valueguard.kafka;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;

import io.valueguard.config.ValueGuardProperties;
import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.kafka.config.KafkaStreamsConfiguration;
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
	void shouldStampEachStagesStateWithTheClusterItIsBuiltFrom(@TempDir Path state) {
		settings(TestProperties.defaults()).configure(factoryBean(state, "vg-keys"));

		assertThat(state.resolve("vg-keys.origin")).content().contains("cluster.id=cluster");
	}

	@Test
	void shouldLeaveStagesThatKeepTheirStoresInMemoryUnstamped(@TempDir Path state) {
		settings(TestProperties.of(Map.of("valueguard.store.type", "in-memory")))
			.configure(factoryBean(state, "vg-keys"));

		assertThat(state.resolve("vg-keys.origin")).doesNotExist();
	}

	private static StreamsBuilderFactoryBean factoryBean(Path state, String applicationId) {
		return new StreamsBuilderFactoryBean(new KafkaStreamsConfiguration(
				Map.of(StreamsConfig.APPLICATION_ID_CONFIG, applicationId, StreamsConfig.STATE_DIR_CONFIG,
						state.toString(), StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092")));
	}

	private static StreamsClientSettings settings(ValueGuardProperties properties) {
		MockEnvironment environment = new MockEnvironment().withProperty(
				"spring.cloud.stream.kafka.streams.binder.configuration.application.server", "localhost:8080");
		return new StreamsClientSettings(properties, environment, new StreamThreadFailures(properties),
				new StaticListableBeanFactory().getBeanProvider(KafkaStreamsCustomizer.class),
				new LocalStateOrigin("cluster", "claims"),
				new ChangelogTopics(new ChangelogTopics.Stores(Map.of()), Map.of(), Map.of(), Map.of()));
	}

	@Test
	void shouldCloseTheStagesAfterTheWebServerHasDrainedItsRequests() {
		StreamsClientSettings settings = settings(TestProperties.defaults());
		StreamsBuilderFactoryBean factoryBean = new StreamsBuilderFactoryBean();
		assertThat(factoryBean.getPhase()).as("Spring Kafka's own").isGreaterThan(
				WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);

		settings.configure(factoryBean);

		// Spring stops the higher phase first: the server's drain, then the stages
		assertThat(factoryBean.getPhase()).isLessThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE)
			.isGreaterThan(WebServerApplicationContext.START_STOP_LIFECYCLE_PHASE);
	}

}
