package io.valueguard.routing;

import io.valueguard.config.QueryProperties;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

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
		TomcatServletWebServerFactory api = new TomcatServletWebServerFactory(9090);
		assertThatIllegalStateException().isThrownBy(() -> new InstancePort.ProtocolConnector(9090).customize(api))
			.withMessageContaining("valueguard.query.internal-port (9090) must differ from server.port (9090)");
		assertThat(api.getAdditionalConnectors()).isEmpty();
	}

	@Test
	void shouldRefuseSpringBootsDefaultApiPortWhenServerPortIsUnset() {
		assertThatIllegalStateException()
			.isThrownBy(() -> new InstancePort.ProtocolConnector(8080).customize(new TomcatServletWebServerFactory()))
			.withMessageContaining("must differ from server.port (8080)");
	}

	@Test
	void shouldAddAConnectorOnItsOwnPort() {
		TomcatServletWebServerFactory api = new TomcatServletWebServerFactory(8080);
		new InstancePort.ProtocolConnector(8082).customize(api);
		assertThat(api.getAdditionalConnectors()).singleElement()
			.satisfies((connector) -> assertThat(connector.getPort()).isEqualTo(8082));
		// two free ports, as tests ask for them
		TomcatServletWebServerFactory random = new TomcatServletWebServerFactory(0);
		new InstancePort.ProtocolConnector(0).customize(random);
		assertThat(random.getAdditionalConnectors()).hasSize(1);
	}

}
