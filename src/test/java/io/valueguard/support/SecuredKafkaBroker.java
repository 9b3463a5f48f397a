package io.valueguard.support;

import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * Apache Kafka's own broker in this JVM, secured as production brokers are: clients connect over {@code SASL_SSL}
 * (SCRAM-SHA-512, a certificate for {@code localhost} made by the JDK's keytool), {@code StandardAuthorizer} with
 * {@code allow.everyone.if.no.acl.found=false}. A second, plaintext listener is the super user's, for the test to
 * create users and ACLs and to read what ValueGuard wrote.
 */
public final class SecuredKafkaBroker implements AutoCloseable {

	private static final String PASSWORD = "broker-store-password";

	private final Path work;

	private final int saslPort = FreePorts.next();

	private final int adminPort = FreePorts.next();

	private final int controllerPort = FreePorts.next();

	private KafkaRaftServer server;

	private SecuredKafkaBroker(Path work) {
		this.work = work;
	}

	/** Starts a broker with its data, certificate and trust store under {@code work}. */
	public static SecuredKafkaBroker start(Path work) throws Exception {
		SecuredKafkaBroker broker = new SecuredKafkaBroker(work);
		broker.certificates();
		broker.run();
		return broker;
	}

	/** Where clients connect with SASL_SSL. */
	public String bootstrapServers() {
		return "localhost:" + this.saslPort;
	}

	/** Where the super user connects, in plaintext. */
	public String adminBootstrapServers() {
		return "localhost:" + this.adminPort;
	}

	/** The client settings of a SCRAM user over SASL_SSL, as the Helm chart renders them. */
	public Map<String, String> clientProperties(String user, String password) {
		return Map.of("security.protocol", "SASL_SSL", "sasl.mechanism", "SCRAM-SHA-512", "sasl.jaas.config",
				"org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user
						+ "\" password=\"" + password + "\";",
				"ssl.truststore.type", "PKCS12", "ssl.truststore.location", this.work.resolve("truststore.p12").toString(),
				"ssl.truststore.password", PASSWORD);
	}

	/** The super user's admin client. */
	public Admin admin() {
		return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, adminBootstrapServers()));
	}

	/** Creates a SCRAM-SHA-512 user. */
	public void createUser(String user, String password) throws Exception {
		try (Admin admin = admin()) {
			admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
					new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), password)))
				.all()
				.get(30, TimeUnit.SECONDS);
		}
	}

	public void grant(List<AclBinding> acls) throws Exception {
		try (Admin admin = admin()) {
			admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
		}
	}

	public void revoke(AclBinding acl) throws Exception {
		try (Admin admin = admin()) {
			admin.deleteAcls(List.of(acl.toFilter())).all().get(30, TimeUnit.SECONDS);
		}
	}

	/** Every ACL the broker holds. */
	public List<AclBinding> acls() throws Exception {
		try (Admin admin = admin()) {
			return new ArrayList<>(admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS));
		}
	}

	/** An ALLOW ACL of {@code User:<user>} from any host. */
	public static AclBinding allow(String user, ResourceType type, String name, PatternType pattern,
			AclOperation operation) {
		return new AclBinding(new ResourcePattern(type, name, pattern),
				new AccessControlEntry("User:" + user, "*", operation, AclPermissionType.ALLOW));
	}

	private void certificates() throws Exception {
		Keytool.localhost(this.work.resolve("broker.p12"), this.work.resolve("truststore.p12"), PASSWORD);
	}

	private void run() throws Exception {
		Path logDir = this.work.resolve("kafka");
		Files.createDirectories(logDir);
		Properties config = new Properties();
		config.put("process.roles", "broker,controller");
		config.put("node.id", "1");
		config.put("controller.quorum.voters", "1@localhost:" + this.controllerPort);
		config.put("listeners", "ADMIN://localhost:" + this.adminPort + ",EXTERNAL://localhost:" + this.saslPort
				+ ",CONTROLLER://localhost:" + this.controllerPort);
		config.put("advertised.listeners",
				"ADMIN://localhost:" + this.adminPort + ",EXTERNAL://localhost:" + this.saslPort);
		config.put("listener.security.protocol.map", "ADMIN:PLAINTEXT,EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT");
		config.put("inter.broker.listener.name", "ADMIN");
		config.put("controller.listener.names", "CONTROLLER");
		config.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
		config.put("allow.everyone.if.no.acl.found", "false");
		// the plaintext listeners (the test's admin, the controller) are the super user
		config.put("super.users", "User:ANONYMOUS");
		config.put("sasl.enabled.mechanisms", "SCRAM-SHA-512");
		config.put("listener.name.external.scram-sha-512.sasl.jaas.config",
				"org.apache.kafka.common.security.scram.ScramLoginModule required;");
		config.put("listener.name.external.ssl.keystore.type", "PKCS12");
		config.put("listener.name.external.ssl.keystore.location", this.work.resolve("broker.p12").toString());
		config.put("listener.name.external.ssl.keystore.password", PASSWORD);
		config.put("listener.name.external.ssl.key.password", PASSWORD);
		config.put("log.dirs", logDir.toString());
		config.put("offsets.topic.replication.factor", "1");
		config.put("transaction.state.log.replication.factor", "1");
		config.put("transaction.state.log.min.isr", "1");
		config.put("share.coordinator.state.topic.replication.factor", "1");
		config.put("share.coordinator.state.topic.min.isr", "1");
		config.put("group.initial.rebalance.delay.ms", "0");
		config.put("auto.create.topics.enable", "false");
		config.put("log.cleaner.dedupe.buffer.size", Integer.toString(2 * 1024 * 1024));
		new Formatter().setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
			.setNodeId(1)
			.setClusterId(Uuid.randomUuid().toString())
			.setDirectories(Set.of(logDir.toString()))
			.setMetadataLogDirectory(logDir.toString())
			.setControllerListenerName("CONTROLLER")
			.setReleaseVersion(MetadataVersion.LATEST_PRODUCTION)
			.run();
		this.server = new KafkaRaftServer(KafkaConfig.fromProps(config, false), Time.SYSTEM);
		this.server.startup();
	}

	@Override
	public void close() {
		if (this.server != null) {
			this.server.shutdown();
			this.server.awaitShutdown();
		}
	}

}
