package io.valueguard.support;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.LoggerFactory;

/**
 * One node of a KRaft cluster (broker and controller), Apache Kafka's own server, in a JVM of its own so that fault
 * tests can kill it with SIGKILL or pause it with SIGSTOP. Arguments: node id, broker port, controller port, the
 * controller quorum ({@code 1@localhost:port,...}), cluster id, data directory (kept between restarts).
 */
public final class BrokerMain {

	/** The system property that sizes the log cleaner's key map, in bytes: 2 MiB unless set. */
	public static final String DEDUPE_BUFFER_PROPERTY = "valueguard.broker.dedupe-buffer-bytes";

	private BrokerMain() {
	}

	public static void main(String[] args) throws Exception {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		// what a fault test needs to tell a group that never settles from a transaction that never ends: the
		// coordinators' rebalances, joins and timed-out transactions (a few lines each)
		((Logger) LoggerFactory.getLogger("org.apache.kafka.coordinator.group")).setLevel(Level.INFO);
		((Logger) LoggerFactory.getLogger("kafka.coordinator.transaction")).setLevel(Level.INFO);
		int nodeId = Integer.parseInt(args[0]);
		int port = Integer.parseInt(args[1]);
		int controllerPort = Integer.parseInt(args[2]);
		String voters = args[3];
		Path dataDir = Path.of(args[5]);
		int nodes = voters.split(",").length;
		Properties config = new Properties();
		config.put("process.roles", "broker,controller");
		config.put("node.id", Integer.toString(nodeId));
		config.put("controller.quorum.voters", voters);
		config.put("listeners", "PLAINTEXT://localhost:" + port + ",CONTROLLER://localhost:" + controllerPort);
		config.put("advertised.listeners", "PLAINTEXT://localhost:" + port);
		config.put("controller.listener.names", "CONTROLLER");
		config.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
		config.put("inter.broker.listener.name", "PLAINTEXT");
		config.put("log.dirs", dataDir.toString());
		String replicas = Integer.toString(nodes);
		String minIsr = Integer.toString(Math.max(1, nodes - 1));
		config.put("offsets.topic.replication.factor", replicas);
		config.put("transaction.state.log.replication.factor", replicas);
		config.put("transaction.state.log.min.isr", minIsr);
		config.put("share.coordinator.state.topic.replication.factor", replicas);
		config.put("share.coordinator.state.topic.min.isr", minIsr);
		config.put("group.initial.rebalance.delay.ms", "0");
		config.put("auto.create.topics.enable", "false");
		// small for the tests' many brokers; a benchmark that measures compaction asks for the broker's default
		config.put("log.cleaner.dedupe.buffer.size",
				Integer.toString(Integer.getInteger(DEDUPE_BUFFER_PROPERTY, 2 * 1024 * 1024)));
		config.put("num.network.threads", "2");
		config.put("num.io.threads", "2");
		KafkaConfig kafkaConfig = KafkaConfig.fromProps(config, false);
		if (!Files.exists(dataDir.resolve("meta.properties"))) {
			format(nodeId, args[4], dataDir);
		}
		KafkaRaftServer server = new KafkaRaftServer(kafkaConfig, Time.SYSTEM);
		// SIGTERM is a graceful shutdown, as in a rolling restart: leadership moves away first
		Runtime.getRuntime().addShutdownHook(new Thread(() -> {
			server.shutdown();
			server.awaitShutdown();
		}));
		server.startup();
		System.out.println("BROKER STARTED");
		new CountDownLatch(1).await();
	}

	private static void format(int nodeId, String clusterId, Path dataDir) throws Exception {
		try {
			Files.createDirectories(dataDir);
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot create " + dataDir, ex);
		}
		new Formatter().setPrintStream(new PrintStream(java.io.OutputStream.nullOutputStream()))
			.setNodeId(nodeId)
			.setClusterId(clusterId)
			.setDirectories(Set.of(dataDir.toString()))
			.setMetadataLogDirectory(dataDir.toString())
			.setControllerListenerName("CONTROLLER")
			.setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
			.setIgnoreFormatted(true)
			.run();
	}

}
