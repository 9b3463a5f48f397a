package io.valueguard.routing;

import io.valueguard.config.QueryProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;

/** The protocol's own port is on only with a port number, and never on the API's port. */
class InstancePortTests {

	@Configuration(proxyBeanMethods = false)
	@EnableConfigurationProperties(QueryProperties.class)
	@Import(InstancePort.class)
	static class Settings {

	}

	private final ApplicationContextRunner runner = new ApplicationContextRunner().withUserConfiguration(Settings.class);

	@Test
	void shouldAddTheConnectorAndThePortSeparationForAPort() {
		this.runner.withPropertyValues("valueguard.query.internal-port=8082", "server.port=8080")
			.run((context) -> assertThat(context).hasSingleBean(InstancePort.ProtocolConnector.class)
				.hasBean("instanceProtocolPortSeparation"));
	}

	@Test
	void shouldShareTheApiPortWhenUnsetOrEmpty() {
		this.runner.run((context) -> assertThat(context).hasNotFailed()
			.doesNotHaveBean(InstancePort.ProtocolConnector.class));
		this.runner.withPropertyValues("valueguard.query.internal-port=")
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(InstancePort.ProtocolConnector.class));
	}

	@Test
	void shouldRefuseTheApiPortWithAMessageNamingBothSettings() {
		this.runner.withPropertyValues("valueguard.query.internal-port=8080", "server.port=8080")
			.run((context) -> assertThat(context).hasFailed()
				.getFailure()
				.rootCause()
				.hasMessageContaining("valueguard.query.internal-port (8080) must differ from server.port"));
	}

}
