package io.valueguard.kafka.local;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.env.Environment;

/**
 * The broker for laptops. Read from the environment before the application context exists (the broker must be up
 * before the streams clients start), so bound here by hand, and checked by the constructor rather than by bean
 * validation.
 * @param enabled start a single-node KRaft broker in the application's JVM; unset, it starts exactly when no Kafka is
 * configured ({@code spring.kafka.bootstrap-servers}, the binder's brokers or {@code KAFKA_BOOTSTRAP_SERVERS})
 * @param port the broker's listener port; 0: any free port
 * @param controllerPort the broker's KRaft controller port; 0: any free port
 * @param logDir where the broker keeps its data; unset, a directory under {@code java.io.tmpdir} named for the port
 */
@ConfigurationProperties("valueguard.embedded-kafka")
public record EmbeddedKafkaProperties(@Nullable Boolean enabled, @DefaultValue("9092") int port,
		@DefaultValue("0") int controllerPort, @Nullable String logDir) {

	static final String PREFIX = "valueguard.embedded-kafka";

	public EmbeddedKafkaProperties {
		requirePort(port, "port");
		requirePort(controllerPort, "controller-port");
	}

	/** The settings as the environment has them now. */
	static EmbeddedKafkaProperties of(Environment environment) {
		return Binder.get(environment).bindOrCreate(PREFIX, EmbeddedKafkaProperties.class);
	}

	private static void requirePort(int port, String name) {
		if (port < 0 || port > 65_535) {
			throw new IllegalArgumentException(PREFIX + "." + name + " must be a port (0 to 65535, 0: any free port), "
					+ "not " + port);
		}
	}

}
