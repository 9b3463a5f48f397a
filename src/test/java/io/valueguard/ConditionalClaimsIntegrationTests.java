package io.valueguard;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import io.valueguard.claims.ClaimHeaders;
import io.valueguard.support.ApiClient;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.Scrape;
import io.valueguard.support.ServiceInstance;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.kafka.test.EmbeddedKafkaBroker;
import org.springframework.kafka.test.context.EmbeddedKafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Conditional releases and claims end to end on a real broker: a release or a move that was meant for a claim the key
 * has since left, whether it reaches the claims topic through the API or from a producer of its own, leaves the key's
 * newer claim as it is; one for the claim the key has lets go of it, or moves from it.
 */
@Tag("integration")
@EmbeddedKafka(partitions = 1, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
class ConditionalClaimsIntegrationTests {

	private static final Duration PATIENCE = Duration.ofSeconds(120);

	private static final String ID = "conditional";

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
	void shouldLetGoOnlyOfTheClaimTheReleaseNames(EmbeddedKafkaBroker broker) {
		this.service = ServiceInstance.start(ID, broker.getBrokersAsString(), this.state, PATIENCE);
		ApiClient api = this.service.api();
		ApiClient.Reply paired = api.claim("device-7", "user-alice", "30s");
		assertThat(paired.json().get("outcome").asString()).isEqualTo("BOUND");
		long alicesClaim = paired.json().get("timestamp").asLong();
		// the device is paired with bob before the unpairing from alice arrives
		assertThat(api.claim("device-7", "user-bob", "30s").json().get("outcome").asString()).isEqualTo("BOUND");

		// through the API: refused at once, nothing sent
		ApiClient.Reply refused = api.delete("/api/bindings/device-7?value=user-alice&wait=5s");
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		assertThat(refused.json().get("type").asString()).isEqualTo("https://valueguard.io/problems/condition-not-met");

		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			// from a producer that read alice's claim before bob's: the key stage, in the key's order, leaves bob's
			kafka.send(ID + ".claims", bytes("device-7"), null, System.currentTimeMillis(), ClaimHeaders.IF_VALUE,
					"user-alice", ClaimHeaders.IF_TIMESTAMP, Long.toString(alicesClaim));
			// and one that names no value: to the DLQ, nothing changes
			kafka.send(ID + ".claims", bytes("device-7"), null, System.currentTimeMillis(), ClaimHeaders.IF_TIMESTAMP,
					Long.toString(alicesClaim));
			await("both applied").atMost(PATIENCE)
				.until(() -> new Scrape(api.get("/actuator/prometheus").body())
					.sum("valueguard_key_stage_records_total", "outcome=\"condition_not_met\"")
					.orElse(0) == 1 && !kafka.readAll(ID + ".dlq").isEmpty());
			assertThat(api.binding("device-7").json().get("value").asString()).isEqualTo("user-bob");
			assertThat(api.owner("user-bob").json().get("key").asString()).isEqualTo("device-7");
			List<ConsumerRecord<byte[], byte[]>> dead = kafka.readAll(ID + ".dlq");
			assertThat(dead).singleElement()
				.satisfies((record) -> assertThat(
						new String(record.headers().lastHeader("valueguard.dlq.reason").value(), StandardCharsets.UTF_8))
					.isEqualTo("INVALID_CONDITION"));
			assertThat(kafka.readAll(ID + ".bindings")).as("bob's binding is the last word on the device")
				.last()
				.satisfies((record) -> assertThat(record.value()).asString(StandardCharsets.UTF_8).isEqualTo("user-bob"));
		}

		// the claim the key has now: released, and said so
		ApiClient.Reply released = api.delete("/api/bindings/device-7?value=user-bob&wait=5s");
		assertThat(released.status()).as(released.body()).isEqualTo(200);
		assertThat(released.json().get("outcome").asString()).isEqualTo("RELEASED");
		assertThat(api.binding("device-7").status()).isEqualTo(404);
		// the value stage applies the release a key stage commit later, as any release
		await("user-bob free").atMost(PATIENCE).until(() -> api.owner("user-bob").status() == 404);

		// an administrator frees a value from whichever key holds it: exactly the claim that holds it
		assertThat(api.claim("device-8", "user-carol", "30s").json().get("outcome").asString()).isEqualTo("BOUND");
		ApiClient.Reply freed = api.delete("/api/owners/user-carol?wait=5s");
		assertThat(freed.status()).as(freed.body()).isEqualTo(200);
		assertThat(freed.json().get("key").asString()).isEqualTo("device-8");
		assertThat(api.binding("device-8").status()).isEqualTo(404);
		await("user-carol free").atMost(PATIENCE).until(() -> api.owner("user-carol").status() == 404);
		assertThat(api.delete("/api/owners/user-carol").status()).as("nobody holds it now").isEqualTo(404);
	}

	@Test
	void shouldMoveOnlyFromTheClaimTheMoveNames(EmbeddedKafkaBroker broker) {
		String id = "moves";
		this.service = ServiceInstance.start(id, broker.getBrokersAsString(), this.state, PATIENCE);
		ApiClient api = this.service.api();
		ApiClient.Reply first = api.claim("account-1", "+4912345", "30s");
		assertThat(first.json().get("outcome").asString()).isEqualTo("BOUND");
		long firstClaim = first.json().get("timestamp").asLong();
		// the account moves to another number before the change from its first one arrives
		assertThat(api.claim("account-1", "+4977777", "30s").json().get("outcome").asString()).isEqualTo("BOUND");

		// through the API: refused at once, nothing sent
		ApiClient.Reply refused = api.put("/api/bindings/account-1?from=" + ApiClient.parameter("+4912345")
				+ "&wait=5s", bytes("+4955555"));
		assertThat(refused.status()).as(refused.body()).isEqualTo(409);
		assertThat(refused.json().get("type").asString()).isEqualTo("https://valueguard.io/problems/condition-not-met");

		try (KafkaProbe kafka = new KafkaProbe(broker.getBrokersAsString())) {
			// from a producer that read the first claim before the second: the key stage, in the key's order, passes
			// the move over
			kafka.send(id + ".claims", bytes("account-1"), bytes("+4955555"), System.currentTimeMillis(),
					ClaimHeaders.IF_VALUE, "+4912345", ClaimHeaders.IF_TIMESTAMP, Long.toString(firstClaim));
			await("passed over").atMost(PATIENCE)
				.until(() -> new Scrape(api.get("/actuator/prometheus").body())
					.sum("valueguard_key_stage_records_total", "outcome=\"condition_not_met\"")
					.orElse(0) == 1);
			assertThat(api.binding("account-1").json().get("value").asString()).isEqualTo("+4977777");
			assertThat(api.owner("+4955555").status()).as("the number it named was never claimed").isEqualTo(404);
			assertThat(kafka.readAll(id + ".dlq")).as("a condition not met is no error").isEmpty();
		}

		// from the claim the key has now: moved, and ruled as any claim
		ApiClient.Reply moved = api.put("/api/bindings/account-1?from=" + ApiClient.parameter("+4977777")
				+ "&wait=5s", bytes("+4955555"));
		assertThat(moved.status()).as(moved.body()).isEqualTo(200);
		assertThat(moved.json().get("outcome").asString()).isEqualTo("BOUND");
		assertThat(api.binding("account-1").json().get("value").asString()).isEqualTo("+4955555");
		assertThat(api.owner("+4955555").json().get("key").asString()).isEqualTo("account-1");
		await("+4977777 free").atMost(PATIENCE).until(() -> api.owner("+4977777").status() == 404);
	}

	private static byte[] bytes(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

}
