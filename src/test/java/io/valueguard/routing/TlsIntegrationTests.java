package io.valueguard.routing;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

import io.valueguard.ValueGuardApplication;
import io.valueguard.support.ApiClient;
import io.valueguard.support.FreePorts;
import io.valueguard.support.Keytool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two instances serving HTTPS with a certificate made by the JDK's keytool, as a Secret from cert-manager would hold
 * it, and the instance protocol on a port of its own, as the Helm chart runs them: clients reach either over https,
 * and lookups forwarded between them go over https too, to the other's protocol port, verified against the configured
 * trust store ({@code valueguard.query.peer-ssl-bundle}); each port answers only what it is for.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 4, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
class TlsIntegrationTests {

	private static final String PASSWORD = "changeit";

	private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

	private static final List<ApiClient> apis = new ArrayList<>();

	private static final List<Integer> ports = new ArrayList<>();

	private static final List<Integer> internalPorts = new ArrayList<>();

	private static SSLContext trusting;

	@TempDir
	static Path work;

	@BeforeAll
	static void startTwoInstancesOverHttps(EmbeddedKafkaBroker broker) throws Exception {
		Path keystore = work.resolve("server.p12");
		Path truststore = work.resolve("trust.p12");
		Keytool.localhost(keystore, truststore, PASSWORD);
		trusting = trusting(truststore);
		for (int i = 0; i < 2; i++) {
			int port = FreePorts.next();
			int internalPort = FreePorts.next();
			String bundles = "--spring.ssl.bundle.jks.";
			instances.add(new SpringApplicationBuilder(ValueGuardApplication.class).run("--server.port=" + port,
					"--management.server.port=" + FreePorts.next(), "--management.server.ssl.enabled=false",
					"--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
					"--valueguard.embedded-kafka.enabled=false", "--valueguard.topics.partitions=4",
					"--valueguard.state-dir=" + work.resolve("state-" + i),
					"--spring.cloud.stream.kafka.streams.binder.configuration.commit.interval.ms=50",
					"--server.ssl.bundle=server", bundles + "server.keystore.location=file:" + keystore,
					bundles + "server.keystore.password=" + PASSWORD, bundles + "server.keystore.type=PKCS12",
					bundles + "peers.truststore.location=file:" + truststore,
					bundles + "peers.truststore.password=" + PASSWORD, bundles + "peers.truststore.type=PKCS12",
					"--valueguard.query.peer-ssl-bundle=peers", "--valueguard.query.internal-port=" + internalPort));
			apis.add(ApiClient.https(port, trusting));
			ports.add(port);
			internalPorts.add(internalPort);
		}
		for (ApiClient api : apis) {
			await("instance answers over https").atMost(Duration.ofSeconds(90))
				.until(() -> api.get("/api/instances").status() == 200);
		}
	}

	@AfterAll
	static void stop() {
		instances.forEach(ConfigurableApplicationContext::close);
	}

	@Test
	void shouldForwardLookupsBetweenInstancesOverVerifiedHttps() {
		for (int i = 0; i < 12; i++) {
			assertThat(apis.get(0).claim("key-" + i, "value-" + i).status()).isEqualTo(202);
		}
		Set<String> servedBy = new HashSet<>();
		for (ApiClient api : apis) {
			await("every binding through " + api).atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
				for (int i = 0; i < 12; i++) {
					ApiClient.Reply reply = api.binding("key-" + i);
					assertThat(reply.status()).as(reply.body()).isEqualTo(200);
					servedBy.add(reply.headers().firstValue("X-ValueGuard-Served-By").orElseThrow());
				}
			});
			ApiClient.Reply reports = api.get("/api/instances");
			reports.json().forEach((report) -> assertThat(report.get("reachable").asBoolean()).isTrue());
		}
		assertThat(servedBy).as("answers from both instances' stores: lookups were forwarded over https").hasSize(2);
	}

	@Test
	void shouldServeTheInstanceProtocolOnItsOwnPortOnly() {
		String protocol = InstanceProtocolServlet.PATH + InstanceProtocolServlet.INSTANCE;
		ApiClient.Reply onApiPort = apis.get(0).get(protocol);
		assertThat(onApiPort.status()).isEqualTo(404);
		assertThat(onApiPort.body()).contains("served on its own port");
		ApiClient internal = ApiClient.https(internalPorts.get(0), trusting);
		ApiClient.Reply api = internal.get("/api/instances");
		assertThat(api.status()).isEqualTo(404);
		assertThat(api.body()).contains("serves only the instance protocol");
		// on its own port the protocol answers (these instances are unsecured, so unsigned calls pass)
		assertThat(internal.get(protocol).status()).isEqualTo(200);
		assertThat(new ApiClient(internalPorts.get(0)).get(protocol).status()).as("plain http on a TLS port")
			.isEqualTo(400);
		// the instances advertise the protocol's port to each other
		assertThat(apis.get(0).get("/api/instances").body()).contains(":" + internalPorts.get(1));
	}

	@Test
	void shouldNotServePlainHttpOnTheApiPort() {
		// Tomcat answers a plain request on a TLS port with a 400, never with the API
		ApiClient.Reply plain = new ApiClient(ports.get(0)).get("/api/instances");
		assertThat(plain.status()).isEqualTo(400);
		assertThat(plain.body()).doesNotContain("reachable");
	}

	private static SSLContext trusting(Path truststore) throws Exception {
		KeyStore store = KeyStore.getInstance("PKCS12");
		try (InputStream in = Files.newInputStream(truststore)) {
			store.load(in, PASSWORD.toCharArray());
		}
		TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
		trust.init(store);
		SSLContext context = SSLContext.getInstance("TLS");
		context.init(null, trust.getTrustManagers(), null);
		return context;
	}

}
