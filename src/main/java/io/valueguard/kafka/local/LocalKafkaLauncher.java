package io.valueguard.kafka.local;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Decides, before any bean exists, where Kafka is. With {@code KAFKA_BOOTSTRAP_SERVERS},
 * {@code spring.kafka.bootstrap-servers} or the binder's {@code brokers} set, ValueGuard uses that cluster. With none,
 * it starts a {@link LocalKafkaBroker} and points every client at it; {@code valueguard.embedded-kafka.enabled}
 * forces either way. The broker is registered in the context so that it stops after the streams have closed.
 */
public class LocalKafkaLauncher implements SmartApplicationListener {

	static final String PROPERTY_SOURCE = "valueguardKafka";

	private static final String ENABLED = EmbeddedKafkaProperties.PREFIX + ".enabled";

	private static final String BOOTSTRAP = "spring.kafka.bootstrap-servers";

	private static final String BINDER_BROKERS = "spring.cloud.stream.kafka.streams.binder.brokers";

	private static final String SESSION_TIMEOUT = "spring.cloud.stream.kafka.streams.binder.configuration.session.timeout.ms";

	@Override
	public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
		return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
				|| ApplicationPreparedEvent.class.isAssignableFrom(eventType);
	}

	@Override
	public int getOrder() {
		// after application.yml and the command line have been read
		return Ordered.LOWEST_PRECEDENCE;
	}

	@Override
	public void onApplicationEvent(ApplicationEvent event) {
		if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
			resolveBootstrapServers(prepared.getEnvironment());
		}
		else if (event instanceof ApplicationPreparedEvent prepared) {
			startBrokerIfNeeded(prepared.getApplicationContext());
		}
	}

	private void resolveBootstrapServers(ConfigurableEnvironment environment) {
		Map<String, Object> derived = new HashMap<>();
		String fromEnvironmentVariable = environment.getProperty("KAFKA_BOOTSTRAP_SERVERS");
		boolean configured = environment.containsProperty(BOOTSTRAP) || environment.containsProperty(BINDER_BROKERS)
				|| fromEnvironmentVariable != null;
		EmbeddedKafkaProperties settings = EmbeddedKafkaProperties.of(environment);
		boolean embedded = (settings.enabled() != null) ? settings.enabled() : !configured;
		if (embedded) {
			int port = (settings.port() != 0) ? settings.port() : freePort();
			derived.put(EmbeddedKafkaProperties.PREFIX + ".port", port);
			derived.put(EmbeddedKafkaProperties.PREFIX + ".controller-port",
					(settings.controllerPort() != 0) ? settings.controllerPort() : freePort());
			derived.put(ENABLED, true);
			derived.put(BOOTSTRAP, "localhost:" + port);
			derived.put(BINDER_BROKERS, "localhost:" + port);
			// the local broker stops with the app, and its groups come back with the members of the last run: a
			// short session timeout lets a restarted app take its tasks back in seconds rather than 45
			if (!environment.containsProperty(SESSION_TIMEOUT)) {
				derived.put(SESSION_TIMEOUT, "6000");
			}
		}
		else if (fromEnvironmentVariable != null && !environment.containsProperty(BOOTSTRAP)) {
			derived.put(BOOTSTRAP, fromEnvironmentVariable);
		}
		if (!derived.isEmpty()) {
			// first, so that the broker's address wins over anything a profile left behind
			environment.getPropertySources().addFirst(new MapPropertySource(PROPERTY_SOURCE, derived));
		}
	}

	private void startBrokerIfNeeded(ConfigurableApplicationContext context) {
		// resolved by the first event: enabled or not, with the ports it chose
		EmbeddedKafkaProperties settings = EmbeddedKafkaProperties.of(context.getEnvironment());
		if (!Boolean.TRUE.equals(settings.enabled())) {
			return;
		}
		Path logDir = Path.of((settings.logDir() != null) ? settings.logDir()
				: System.getProperty("java.io.tmpdir") + "/valueguard-kafka-" + settings.port());
		LocalKafkaBroker broker = new LocalKafkaBroker(settings.port(), settings.controllerPort(), logDir).start();
		// registered first, destroyed last: after the streams and producers that talk to it have closed
		context.getBeanFactory().registerSingleton("localKafkaBroker", broker);
		((org.springframework.beans.factory.support.DefaultSingletonBeanRegistry) context.getBeanFactory())
			.registerDisposableBean("localKafkaBroker", broker);
	}

	private static int freePort() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
