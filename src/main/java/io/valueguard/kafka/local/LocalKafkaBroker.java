package io.valueguard.kafka.local;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

import org.springframework.beans.factory.DisposableBean;

/**
 * A single-node KRaft broker, Apache Kafka's own server code, run in-process so that {@code ./mvnw spring-boot:run}
 * works on a machine with no Kafka. Its log directory persists between runs, so topics, changelogs and bindings
 * survive a restart just as they would on a real cluster. Never started when bootstrap servers are configured.
 */
public final class LocalKafkaBroker implements DisposableBean {

	private static final Log logger = LogFactory.getLog(LocalKafkaBroker.class);

	private static final String CONTROLLER = "CONTROLLER";

	private final int port;

	private final int controllerPort;

	private final Path logDir;

	private KafkaRaftServer server;

	public LocalKafkaBroker(int port, int controllerPort, Path logDir) {
		this.port = port;
		this.controllerPort = controllerPort;
		this.logDir = logDir;
	}

	public String bootstrapServers() {
		return "localhost:" + this.port;
	}

	public LocalKafkaBroker start() {
		requireFree(this.port, "valueguard.embedded-kafka.port");
		requireFree(this.controllerPort, "valueguard.embedded-kafka.controller-port");
		Properties config = config();
		KafkaConfig kafkaConfig = KafkaConfig.fromProps(config, false);
		format();
		this.server = new KafkaRaftServer(kafkaConfig, Time.SYSTEM);
		this.server.startup();
		logger.info("Started local Kafka broker on " + bootstrapServers() + " with data in " + this.logDir
				+ " (set KAFKA_BOOTSTRAP_SERVERS to use a real cluster instead)");
		return this;
	}

	private Properties config() {
		Properties config = new Properties();
		config.put("process.roles", "broker,controller");
		config.put("node.id", "1");
		config.put("controller.quorum.voters", "1@localhost:" + this.controllerPort);
		config.put("listeners", "PLAINTEXT://localhost:" + this.port + "," + CONTROLLER + "://localhost:"
				+ this.controllerPort);
		config.put("advertised.listeners", "PLAINTEXT://localhost:" + this.port);
		config.put("controller.listener.names", CONTROLLER);
		config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT," + CONTROLLER + ":PLAINTEXT");
		config.put("inter.broker.listener.name", "PLAINTEXT");
		config.put("log.dirs", this.logDir.toString());
		// one broker: every replicated internal topic has one replica, exactly-once included
		config.put("offsets.topic.replication.factor", "1");
		config.put("transaction.state.log.replication.factor", "1");
		config.put("transaction.state.log.min.isr", "1");
		config.put("share.coordinator.state.topic.replication.factor", "1");
		config.put("share.coordinator.state.topic.min.isr", "1");
		config.put("group.initial.rebalance.delay.ms", "0");
		config.put("auto.create.topics.enable", "false");
		// keep a laptop's footprint small
		config.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
		config.put("num.network.threads", "2");
		config.put("num.io.threads", "2");
		return config;
	}

	private void format() {
		if (Files.exists(this.logDir.resolve("meta.properties"))) {
			return;
		}
		try {
			Files.createDirectories(this.logDir);
			new Formatter().setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
				.setNodeId(1)
				.setClusterId(Uuid.randomUuid().toString())
				.setDirectories(Set.of(this.logDir.toString()))
				.setMetadataLogDirectory(this.logDir.toString())
				.setControllerListenerName(CONTROLLER)
				.setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
				.setIgnoreFormatted(true)
				.run();
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Cannot create the local Kafka log directory " + this.logDir, ex);
		}
		catch (Exception ex) {
			throw new IllegalStateException("Cannot format the local Kafka log directory " + this.logDir, ex);
		}
	}

	private static void requireFree(int port, String property) {
		try (ServerSocket socket = new ServerSocket()) {
			socket.setReuseAddress(true);
			socket.bind(new InetSocketAddress("localhost", port));
		}
		catch (IOException ex) {
			throw new IllegalStateException(("Port %d is taken, so the local Kafka broker cannot start. If a Kafka "
					+ "broker runs there, set KAFKA_BOOTSTRAP_SERVERS=localhost:%d to use it; otherwise move the "
					+ "local broker with %s.").formatted(port, port, property), ex);
		}
	}

	@Override
	public void destroy() {
		if (this.server != null) {
			this.server.shutdown();
			this.server.awaitShutdown();
			this.server = null;
			logger.info("Stopped local Kafka broker on " + bootstrapServers());
		}
	}

}
