package io.valueguard.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.valueguard.support.ApiClient;
import io.valueguard.support.EmbeddedBrokers;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.Scrape;
import io.valueguard.support.ServiceInstance;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * An instance that crashed mid-transaction leaves its transaction open: the group coordinator holds back the input
 * offsets it committed, and its records hold back every read_committed reader of the partitions it wrote, until the
 * broker aborts it at its timeout. Here a producer named as a departed instance's key-stage producer holds both, with a
 * transaction timeout of ten minutes: the instance must fence it and go on at once.
 */
@Tag("integration")
@ExtendWith(OutputCaptureExtension.class)
class DepartedProducersIntegrationTests {

	/** Far shorter than the holder's transaction timeout (10 minutes), which would otherwise end the wait. */
	private static final Duration PATIENCE = Duration.ofSeconds(60);

	private static final String ID = "departed";

	/** The key stage's producer of an instance that is no longer in the group. */
	private static final String HOLDER = ID + "-keys-5d0c7a4e-3f7b-4c1a-9e55-2b8f61d0a7c3-1";

	@TempDir
	Path work;

	private final EmbeddedKafkaKraftBroker broker = EmbeddedBrokers.exactlyOnce();

	@AfterEach
	void stopBroker() {
		this.broker.destroy();
	}

	@Test
	void shouldFenceTheOpenTransactionOfAnInstanceThatLeftTheGroup(CapturedOutput output) throws Exception {
		try (ServiceInstance first = start()) {
			assertThat(first.api().claim("alice", "desk-1").status()).isEqualTo(202);
			await("alice bound").atMost(PATIENCE).until(() -> first.api().binding("alice").status() == 200);
		}
		try (KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString());
				KafkaProducer<byte[], byte[]> holder = kafka.transactionalProducer(HOLDER)) {
			Map<TopicPartition, OffsetAndMetadata> committed = kafka.committedOffsets(ID + "-keys");
			committed.keySet().removeIf((partition) -> !partition.topic().equals(ID + ".claims"));
			assertThat(committed).as("the key stage's committed claims offsets").isNotEmpty();
			holder.initTransactions();
			holder.beginTransaction();
			// a command batch the crash left in the transaction, and the input offsets it committed with it
			holder.send(new ProducerRecord<>(ID + "-owner-commands", 0, bytes("desk-9"), bytes("unfinished")));
			holder.sendOffsetsToTransaction(committed, new ConsumerGroupMetadata(ID + "-keys"));
			holder.flush();

			try (ServiceInstance again = ServiceInstance.launch(ID, this.broker.getBrokersAsString(),
					this.work.resolve("state"))) {
				ApiClient api = again.api();
				await("ready, long before the held transaction's timeout").atMost(PATIENCE)
					.until(() -> api.get("/actuator/health/readiness").status() == 200);
				assertThat(output.getOut()).contains("Fenced producer " + HOLDER + " of an instance that left group "
						+ ID + "-keys with a transaction open");
				assertThat(new Scrape(api.get("/actuator/prometheus").body()).sum(
						"valueguard_departed_producers_fenced_total", "application_id=\"" + ID + "-keys\""))
					.hasValue(1);

				// the value stage reads past where the holder's record was
				assertThat(api.claim("bob", "desk-2").status()).isEqualTo(202);
				await("bob's value owned").atMost(PATIENCE).until(() -> api.owner("desk-2").status() == 200);
				assertThat(api.binding("alice").body()).contains("desk-1");
			}
			assertThatExceptionOfType(KafkaException.class).isThrownBy(holder::commitTransaction);
		}
	}

	private ServiceInstance start() {
		return ServiceInstance.start(ID, this.broker.getBrokersAsString(), this.work.resolve("state"), PATIENCE);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
