package io.valueguard.routing;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.valueguard.messages.KeyPartitions;
import io.valueguard.support.ApiClient;
import io.valueguard.support.ApiClient.Reply;
import io.valueguard.support.EmbeddedBrokers;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.ServiceInstance;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stream thread given a task whose input's committed offsets a transaction holds back (as a crashed instance's
 * producer does until the broker aborts its transaction) stays out of RUNNING until they clear, and Kafka Streams
 * refuses every active store of the thread meanwhile. The thread's other task processes on: strict lookups of its keys
 * must be answered, from its store, and so must this instance's shares of batch lookups and listings, while the held
 * partition's keys are refused until its task runs.
 */
@Tag("integration")
class LookupsWhileRebalancingIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final String ID = "rebalancing";

	/** A producer of the key stage as Kafka Streams names them, of an instance that crashed mid-transaction. */
	private static final String HOLDER = ID + "-keys-6a1d2c0e-52f1-4b6e-9a43-1d7c1f0e8b21-1";

	/**
	 * Two partitions, one for each key; the stages' consumers give up a fetch of held offsets after 2 s and try again
	 * later, so that the thread moves on to its other task whichever of the two it tries first. The held offsets stand
	 * for any wait of a task given to the thread.
	 */
	private static final String[] SETTINGS = { "--valueguard.topics.partitions=2",
			"--spring.cloud.stream.kafka.streams.binder.configuration.main.consumer.default.api.timeout.ms=2000",
			// the holder is named as a departed instance's producer, which the instance would fence at once
			"--valueguard.streams.fence-departed-producers=false" };

	@TempDir
	Path work;

	private final EmbeddedKafkaKraftBroker broker = EmbeddedBrokers.exactlyOnce();

	@AfterEach
	void stopBroker() {
		this.broker.destroy();
	}

	@Test
	void shouldAnswerStrictLookupsOfAProcessingTaskWhileItsThreadWaitsForAnother() throws Exception {
		String running = keyOn(0);
		String held = keyOn(1);
		try (ServiceInstance first = start()) {
			ApiClient api = first.api();
			assertThat(api.claim(running, "desk-1").status()).isEqualTo(202);
			assertThat(api.claim(held, "desk-2").status()).isEqualTo(202);
			await("both bound").atMost(PATIENCE)
				.until(() -> api.binding(running).status() == 200 && api.binding(held).status() == 200);
		}
		try (KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString());
				KafkaProducer<byte[], byte[]> holder = kafka.transactionalProducer(HOLDER)) {
			Map<TopicPartition, OffsetAndMetadata> committed = kafka.committedOffsets(ID + "-keys");
			committed.keySet().removeIf((partition) -> !partition.equals(new TopicPartition(ID + ".claims", 1)));
			assertThat(committed).as("the key stage's committed offset of claims partition 1").hasSize(1);
			holder.initTransactions();
			holder.beginTransaction();
			// the same offset again, in a transaction left open: the coordinator holds it back until it ends
			holder.sendOffsetsToTransaction(committed, new ConsumerGroupMetadata(ID + "-keys"));

			try (ServiceInstance again = ServiceInstance.launch(ID, this.broker.getBrokersAsString(),
					this.work.resolve("state"), SETTINGS)) {
				ApiClient api = again.api();
				await("the running partition's key answered strictly").atMost(PATIENCE)
					.until(() -> api.binding(running).status() == 200);
				// the stage is still out of RUNNING: its other task waits for the held offset
				assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(503);
				assertThat(api.binding(held).status()).isEqualTo(503);
				assertThat(api.binding(running).body()).contains("\"value\":\"desk-1\"");
				assertThat(api.get("/api/bindings/" + running + "?maxLag=0").status()).isEqualTo(200);
				// what other instances ask of this one: its share of a batch and of a listing, from the running
				// partition alone
				Reply share = api.postJson("/internal/lookup/bindings", "[\"" + running + "\",\"" + held + "\"]");
				assertThat(share.status()).isEqualTo(200);
				assertThat(share.json().propertyNames()).containsExactly(running);
				assertThat(share.json().get(running).get("value").asString()).isEqualTo("desk-1");
				Reply page = api.get("/internal/page/bindings?limit=10");
				assertThat(page.status()).isEqualTo(200);
				assertThat(page.json().get("partitions").values()).extracting(JsonNode::asInt).containsExactly(0);
				assertThat(page.json().get("items").values()).extracting((item) -> item.get("key").asString())
					.containsExactly(running);
				assertThat(api.postJson("/api/bindings/lookup", "[\"" + running + "\"]").body()).contains("desk-1");

				holder.abortTransaction();

				await("ready once the transaction ended").atMost(PATIENCE)
					.until(() -> api.get("/actuator/health/readiness").status() == 200);
				assertThat(api.binding(held).status()).isEqualTo(200);
				assertThat(api.binding(running).status()).isEqualTo(200);
			}
		}
	}

	private ServiceInstance start() {
		return ServiceInstance.start(ID, this.broker.getBrokersAsString(), this.work.resolve("state"), PATIENCE,
				SETTINGS);
	}

	/** A key that Kafka's default partitioner puts on {@code partition} of two. */
	private static String keyOn(int partition) {
		for (int i = 0;; i++) {
			String key = "seat-" + i;
			if (KeyPartitions.of(key.getBytes(StandardCharsets.UTF_8), 2) == partition) {
				return key;
			}
		}
	}

}
