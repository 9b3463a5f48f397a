package io.valueguard.config;

import java.time.Duration;
import java.util.Map;

import io.valueguard.kafka.local.EmbeddedKafkaProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.validation.autoconfigure.ValidationAutoConfiguration;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** A bad setting stops start-up with a message that names it; good ones bind with the documented defaults. */
class ValueGuardPropertiesTests {

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(ValueGuardProperties.class)
	static class Settings {

	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(ValidationAutoConfiguration.class))
		.withUserConfiguration(Settings.class);

	@Test
	void shouldBindTheDefaults() {
		this.runner.run((context) -> {
			ValueGuardProperties properties = context.getBean(ValueGuardProperties.class);
			assertThat(properties.advertisedHost()).isEqualTo("localhost");
			assertThat(properties.advertisedPort()).isNull();
			assertThat(properties.standbyReplicas()).isEqualTo(1);
			assertThat(properties.metrics().recordingLevel()).isEqualTo("INFO");
			assertThat(properties.metrics().refreshInterval()).hasSeconds(10);
			assertThat(properties.store().compaction()).isEqualTo(
					Map.of("max.compaction.lag.ms", "86400000", "delete.retention.ms", "86400000"));
			// unset: the stages ask for a commit at most once per commit interval
			assertThat(properties.streams().promptCommitInterval()).isNull();
			assertThat(properties.streams().offsetsCheckAfter()).isEqualTo(Duration.ofMinutes(1));
		});
	}

	@Test
	void shouldRefuseToStartWithABadValueAndNameIt() {
		Map<String, String> bad = Map.of("valueguard.standby-replicas", "-1", "valueguard.advertised-port", "70000",
				"valueguard.metrics.recording-level", "debug", "valueguard.advertised-host", "my host",
				"valueguard.store.max-compaction-lag", "0s", "valueguard.metrics.refresh-interval", "soon",
				"valueguard.retention", "-1d", "valueguard.streams.prompt-commit-interval", "0ms",
				"valueguard.streams.offsets-check-after", "-1s");
		bad.forEach((name, value) -> this.runner.withPropertyValues(name + "=" + value)
			.run((context) -> assertThat(context).as(name).hasFailed()
				.getFailure()
				.satisfies((failure) -> assertThat(relaxed(messages(failure))).as(name)
					.contains(relaxed(name.substring(name.lastIndexOf('.') + 1))))));
	}

	@Test
	void shouldRefuseALocalBrokerPortOutOfRange() {
		assertThatIllegalArgumentException().isThrownBy(() -> new EmbeddedKafkaProperties(true, 70_000, 0, null))
			.withMessageContaining("valueguard.embedded-kafka.port");
		assertThatIllegalArgumentException().isThrownBy(() -> new EmbeddedKafkaProperties(true, 9092, -1, null))
			.withMessageContaining("valueguard.embedded-kafka.controller-port");
	}

	/** A setting's name as a binding failure may spell it: kebab-case or camelCase. */
	private static String relaxed(String text) {
		return text.replace("-", "").toLowerCase(java.util.Locale.ROOT);
	}

	private static String messages(Throwable failure) {
		StringBuilder messages = new StringBuilder();
		for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
			messages.append(cause.getMessage()).append('\n');
		}
		return messages.toString();
	}

}
