package io.valueguard;

import java.io.UncheckedIOException;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import io.valueguard.support.ApiClient;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.Scrape;
import io.valueguard.support.ServiceInstance;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A shutdown is not held up by a synchronous write whose client went away without the server seeing it (HTTP/1.1
 * gives it no sign): the server drains its open requests before it stops, and such a wait used to keep it draining
 * for the rest of its patience.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 1, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
class ShutdownIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(120);

	private static final String ID = "shutdown";

	@TempDir
	Path state;

	private ServiceInstance service;

	@AfterEach
	void stop() {
		if (this.service != null) {
			this.service.close();
		}
	}

	@Test
	void shouldNotWaitOutAnAbandonedSynchronousWriteWhenStopping(EmbeddedKafkaBroker broker) {
		this.service = ServiceInstance.start(ID, broker.getBrokersAsString(), this.state, PATIENCE,
				"--valueguard.retention=1s");
		ApiClient api = this.service.api();
		// a claim 50 s ahead makes the next one from the API too old to apply (retention 1 s): it is dead-lettered,
		// so a wait for its ruling would last its whole patience
		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			kafka.send(ID + ".claims", bytes("k1"), bytes("ahead"), System.currentTimeMillis() + 50_000);
		}
		await().atMost(PATIENCE).until(() -> api.get("/api/claims/k1").body().contains("ahead"));

		// the client gives up after 1 s of its 30 s wait, and over HTTP/1.1 the server cannot tell
		ApiClient impatient = new ApiClient(this.service.port(), Duration.ofSeconds(1));
		assertThatExceptionOfType(UncheckedIOException.class).isThrownBy(() -> impatient.claim("k1", "now", "30s"))
			.withCauseInstanceOf(HttpTimeoutException.class);
		// published and waiting, though nobody listens (the server goes on with a request whose client left)
		await().atMost(PATIENCE)
			.until(() -> new Scrape(api.get("/actuator/prometheus").body()).sum("valueguard_waiting_requests")
				.orElse(0) == 1.0);

		long closing = System.nanoTime();
		this.service.close();
		Duration closed = Duration.ofNanos(System.nanoTime() - closing);
		this.service = null;

		// the last call (2 s) and the stages' close, not the rest of the wait's 30 s
		assertThat(closed).isLessThan(Duration.ofSeconds(20));
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
