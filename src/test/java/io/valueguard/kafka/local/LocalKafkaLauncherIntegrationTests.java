package io.valueguard.kafka.local;

import java.nio.file.Path;
import java.time.Duration;

import io.valueguard.ValueGuardApplication;
import io.valueguard.support.ApiClient;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What a newcomer gets from {@code ./mvnw spring-boot:run}: with no Kafka configured, the application starts its own
 * broker, creates its topics and serves claims; after a restart on the same data, bindings are still there.
 */
@Tag("integration")
class LocalKafkaLauncherIntegrationTests {

	@TempDir
	Path data;

	@Test
	void shouldServeClaimsOnLocalBrokerAndKeepThemAcrossRestart() {
		// enabled explicitly: other tests in this JVM may leave spring.kafka.bootstrap-servers in system properties
		String[] args = { "--server.port=0", "--valueguard.embedded-kafka.port=0", "--valueguard.embedded-kafka.enabled=true",
				"--valueguard.embedded-kafka.log-dir=" + this.data.resolve("kafka"),
				"--valueguard.state-dir=" + this.data.resolve("state") };
		int brokerPort;
		try (ConfigurableApplicationContext app = start(args)) {
			assertThat(app.getBean(LocalKafkaBroker.class)).isNotNull();
			brokerPort = app.getEnvironment().getRequiredProperty("valueguard.embedded-kafka.port", Integer.class);
			assertThat(app.getEnvironment().getProperty("spring.kafka.bootstrap-servers"))
				.isEqualTo("localhost:" + brokerPort);
			ApiClient api = api(app);
			assertThat(api.claim("alice", "+1-555-0100").status()).isEqualTo(202);
			await("alice bound").atMost(Duration.ofSeconds(60)).until(() -> api.binding("alice").status() == 200);
		}
		// same broker port and data: the restarted application finds its topics, changelogs and bindings
		args[1] = "--valueguard.embedded-kafka.port=" + brokerPort;
		try (ConfigurableApplicationContext app = start(args)) {
			ApiClient api = api(app);
			await("alice still bound").atMost(Duration.ofSeconds(60))
				.until(() -> api.binding("alice").status() == 200);
			assertThat(api.owner("+1-555-0100").json().get("key").asString()).isEqualTo("alice");
		}
	}

	private static ConfigurableApplicationContext start(String[] args) {
		ConfigurableApplicationContext app = new SpringApplicationBuilder(ValueGuardApplication.class).run(args);
		ApiClient api = api(app);
		await("ready").atMost(Duration.ofSeconds(60))
			.until(() -> api.get("/actuator/health/readiness").status() == 200);
		return app;
	}

	private static ApiClient api(ConfigurableApplicationContext app) {
		return new ApiClient(app.getEnvironment().getRequiredProperty("local.server.port", Integer.class));
	}

}
