package io.valueguard.kafka.local;

import org.junit.jupiter.api.Test;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.bootstrap.DefaultBootstrapContext;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.mock.env.MockEnvironment;

import static org.assertj.core.api.Assertions.assertThat;

/** Where Kafka is, decided from the environment before any bean exists. */
class LocalKafkaLauncherTests {

	@Test
	void shouldUseLocalBrokerWhenNoKafkaIsConfigured() {
		MockEnvironment environment = prepare(new MockEnvironment());

		assertThat(environment.getProperty("valueguard.embedded-kafka.enabled")).isEqualTo("true");
		assertThat(environment.getProperty("spring.kafka.bootstrap-servers")).isEqualTo("localhost:9092");
		assertThat(environment.getProperty("valueguard.embedded-kafka.controller-port", Integer.class)).isPositive();
	}

	@Test
	void shouldUseConfiguredPortForLocalBroker() {
		MockEnvironment environment = prepare(new MockEnvironment().withProperty("valueguard.embedded-kafka.port", "19092"));

		assertThat(environment.getProperty("spring.kafka.bootstrap-servers")).isEqualTo("localhost:19092");
	}

	@Test
	void shouldUseClusterFromEnvironmentVariable() {
		MockEnvironment environment = prepare(
				new MockEnvironment().withProperty("KAFKA_BOOTSTRAP_SERVERS", "kafka-0:9092,kafka-1:9092"));

		assertThat(environment.getProperty("valueguard.embedded-kafka.enabled")).isNull();
		assertThat(environment.getProperty("spring.kafka.bootstrap-servers")).isEqualTo("kafka-0:9092,kafka-1:9092");
	}

	@Test
	void shouldLeaveExplicitBootstrapServersAlone() {
		MockEnvironment environment = prepare(new MockEnvironment()
			.withProperty("spring.kafka.bootstrap-servers", "broker:9093")
			.withProperty("KAFKA_BOOTSTRAP_SERVERS", "other:9092"));

		assertThat(environment.getProperty("valueguard.embedded-kafka.enabled")).isNull();
		assertThat(environment.getProperty("spring.kafka.bootstrap-servers")).isEqualTo("broker:9093");
	}

	@Test
	void shouldStartNoBrokerWhenDisabledExplicitly() {
		MockEnvironment environment = prepare(
				new MockEnvironment().withProperty("valueguard.embedded-kafka.enabled", "false"));

		assertThat(environment.getProperty("spring.kafka.bootstrap-servers")).isNull();
	}

	private static MockEnvironment prepare(MockEnvironment environment) {
		new LocalKafkaLauncher().onApplicationEvent(new ApplicationEnvironmentPreparedEvent(
				new DefaultBootstrapContext(), new SpringApplication(), new String[0], environment));
		return environment;
	}

}
