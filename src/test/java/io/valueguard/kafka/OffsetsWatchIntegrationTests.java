package io.valueguard.kafka;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.valueguard.support.ApiClient;
import io.valueguard.support.EmbeddedBrokers;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.Scrape;
import io.valueguard.support.ServiceInstance;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A stage whose group's committed offsets a transaction holds back cannot start its tasks: here a producer commits
 * offsets for the key stage's group in a transaction it leaves open, as a crashed instance's producer would until the
 * transaction times out. The instance must say, from the broker, which partitions wait and on which transaction, and
 * go on once the transaction ends.
 */
@Tag("integration")
@ExtendWith(OutputCaptureExtension.class)
class OffsetsWatchIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(90);

	private static final String ID = "held";

	/**
	 * A producer of the key stage as Kafka Streams names them, of an instance that crashed in the middle of a
	 * transaction: only the stage's own producers commit its offsets.
	 */
	private static final String HOLDER = ID + "-keys-0f6026f2-6ba7-42ad-9438-87be8807ed5f-1";

	/** Another application's producer, whose group's offsets share the partition of the offsets topic. */
	private static final String NEIGHBOUR = "neighbour-producer";

	@TempDir
	Path work;

	private final EmbeddedKafkaKraftBroker broker = EmbeddedBrokers.exactlyOnce();

	@AfterEach
	void stopBroker() {
		this.broker.destroy();
	}

	@Test
	void shouldNameTheOpenTransactionThatHoldsTheKeyStagesOffsetsAndGoOnWhenItEnds(CapturedOutput output)
			throws Exception {
		try (ServiceInstance first = start(); KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString())) {
			kafka.send(ID + ".claims", bytes("alice"), bytes("v1"), System.currentTimeMillis());
			await("alice bound").atMost(PATIENCE).until(() -> first.api().binding("alice").status() == 200);
		}
		Map<TopicPartition, OffsetAndMetadata> committed;
		int offsetsPartitions;
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
				this.broker.getBrokersAsString()))) {
			committed = new HashMap<>(admin.listConsumerGroupOffsets(ID + "-keys")
				.partitionsToOffsetAndMetadata()
				.get(30, TimeUnit.SECONDS));
			offsetsPartitions = admin.describeTopics(List.of(Topic.GROUP_METADATA_TOPIC_NAME))
				.allTopicNames()
				.get(30, TimeUnit.SECONDS)
				.get(Topic.GROUP_METADATA_TOPIC_NAME)
				.partitions()
				.size();
		}
		committed.keySet().removeIf((partition) -> !partition.topic().equals(ID + ".claims"));
		assertThat(committed).as("the key stage's committed claims offsets").isNotEmpty();

		try (KafkaProbe kafka = new KafkaProbe(this.broker.getBrokersAsString());
				KafkaProducer<byte[], byte[]> holder = kafka.transactionalProducer(HOLDER);
				KafkaProducer<byte[], byte[]> neighbour = kafka.transactionalProducer(NEIGHBOUR)) {
			holder.initTransactions();
			holder.beginTransaction();
			// the same offsets again, in a transaction left open: the coordinator holds them back until it ends
			holder.sendOffsetsToTransaction(committed, new ConsumerGroupMetadata(ID + "-keys"));
			// and another application's open transaction on the same partition of the offsets topic, which holds
			// nothing of this group's back: on a shared cluster one is open there most of the time
			neighbour.initTransactions();
			neighbour.beginTransaction();
			neighbour.sendOffsetsToTransaction(committed, new ConsumerGroupMetadata(neighbourGroup(offsetsPartitions)));

			try (ServiceInstance again = ServiceInstance.launch(ID, this.broker.getBrokersAsString(),
					this.work.resolve("state"), "--valueguard.streams.offsets-check-after=3s",
					// else the holder, named as a departed instance's producer, is fenced at once (DepartedProducers);
					// the watch is for a transaction that stays open all the same
					"--valueguard.streams.fence-departed-producers=false")) {
				ApiClient api = again.api();
				await("the diagnosis").atMost(PATIENCE)
					.untilAsserted(() -> assertThat(output.getOut()).contains("Stage " + ID + "-keys has not been "
							+ "RUNNING for")
						.contains("as a transaction's until this open transaction ends: [" + HOLDER + " (Ongoing"));
				assertThat(output.getOut()).doesNotContain(NEIGHBOUR);
				assertThat(output.getOut()).contains(ID + ".claims-0");
				Scrape scrape = new Scrape(api.get("/actuator/prometheus").body());
				assertThat(scrape.sum("valueguard_offsets_held_back_partitions", "application_id=\"" + ID + "-keys\"",
						"transaction=\"open\"")).hasValue(committed.size());
				assertThat(scrape.sum("valueguard_offsets_held_back_partitions", "transaction=\"none\"")).hasValue(0);
				assertThat(api.get("/actuator/health/readiness").status()).isEqualTo(503);

				holder.abortTransaction();

				await("ready once the transaction ended").atMost(PATIENCE)
					.until(() -> api.get("/actuator/health/readiness").status() == 200);
				await("the diagnosis cleared").atMost(PATIENCE)
					.untilAsserted(() -> assertThat(new Scrape(api.get("/actuator/prometheus").body())
						.sum("valueguard_offsets_held_back_partitions")).hasValue(0));
				assertThat(output.getOut()).contains("Stage " + ID + "-keys: the committed offsets of");
				assertThat(api.binding("alice").status()).isEqualTo(200);
			}
		}
	}

	/** A group the coordinator places on the same partition of the offsets topic as the key stage's. */
	private static String neighbourGroup(int offsetsPartitions) {
		int keys = AdminOffsetsInspector.offsetsPartitionOf(ID + "-keys", offsetsPartitions);
		for (int i = 0;; i++) {
			String group = "neighbour-" + i;
			if (AdminOffsetsInspector.offsetsPartitionOf(group, offsetsPartitions) == keys) {
				return group;
			}
		}
	}

	private ServiceInstance start() {
		return ServiceInstance.start(ID, this.broker.getBrokersAsString(), this.work.resolve("state"), PATIENCE);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
