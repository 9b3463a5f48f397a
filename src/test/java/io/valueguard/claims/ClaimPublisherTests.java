package io.valueguard.claims;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.valueguard.support.TestProperties;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verifyNoInteractions;

class ClaimPublisherTests {

	@SuppressWarnings("unchecked")
	private final KafkaTemplate<String, String> template = mock(KafkaTemplate.class);

	private final ClaimPublisher publisher = new ClaimPublisher(this.template, TestProperties.defaults());

	@Test
	void shouldReturnWhereTheClaimWentWhenKafkaAcknowledges() {
		RecordMetadata metadata = new RecordMetadata(new TopicPartition("valueguard.claims", 2), 40, 1, 1234, 5, 5);
		given(this.template.send("valueguard.claims", "alice", "phone")).willReturn(CompletableFuture
			.completedFuture(new SendResult<>(new ProducerRecord<>("valueguard.claims", "alice", "phone"), metadata)));

		assertThat(this.publisher.publish("alice", "phone", null))
			.isEqualTo(new ClaimPublisher.Receipt("alice", "phone", "valueguard.claims", 2, 41, 1234));
		// nobody waits for more than the acknowledgement: it may share a request with concurrent writes
		then(this.template).should(never()).flush();
	}

	@Test
	void shouldAskForAnErasureWithATombstoneThatCarriesTheEraseHeader() {
		ArgumentCaptor<ProducerRecord<String, String>> sent = acknowledgeRecords(
				new RecordMetadata(new TopicPartition("valueguard.claims", 1), 7, 0, 99, 5, 0));

		assertThat(this.publisher.erase("mallory", "dpo", false))
			.isEqualTo(new ClaimPublisher.Receipt("mallory", null, "valueguard.claims", 1, 7, 99));
		assertThat(sent.getValue().key()).isEqualTo("mallory");
		assertThat(sent.getValue().value()).isNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.ERASE)).isNotNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.PRINCIPAL).value()).asString(UTF_8)
			.isEqualTo("dpo");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.WAITING)).isNull();
		then(this.template).should(never()).flush();
	}

	@Test
	void shouldMarkAnErasureSomeoneWaitsForSoThatEachStageCommitsItsPartAtOnce() {
		ArgumentCaptor<ProducerRecord<String, String>> sent = acknowledgeRecords(
				new RecordMetadata(new TopicPartition("valueguard.claims", 1), 7, 0, 99, 5, 0));

		this.publisher.erase("mallory", null, true);

		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.ERASE)).isNotNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.WAITING)).isNotNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.PRINCIPAL)).isNull();
		// out at once, as a waited-for claim: no other write awaits the broker
		then(this.template).should().flush();
	}

	@Test
	void shouldSendAConditionalReleaseAsATombstoneNamingTheClaimItLetsGoOf() {
		ArgumentCaptor<ProducerRecord<String, String>> sent = acknowledgeRecords(
				new RecordMetadata(new TopicPartition("valueguard.claims", 1), 7, 0, 99, 5, 0));

		this.publisher.releaseIf("device-7", new ClaimCondition("user-alice", 1234L), null, false);

		assertThat(sent.getValue().value()).isNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.IF_VALUE).value()).asString(UTF_8)
			.isEqualTo("user-alice");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.IF_TIMESTAMP).value()).asString(UTF_8)
			.isEqualTo("1234");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.WAITING)).isNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.ERASE)).isNull();
		// a condition on a value no claim could have is refused before anything is sent
		assertThatExceptionOfType(ClaimPublisher.InvalidClaimException.class)
			.isThrownBy(() -> this.publisher.releaseIf("device-7", new ClaimCondition("", null), null, false));
	}

	@Test
	void shouldSendAConditionalClaimAsAClaimNamingTheClaimItMovesFrom() {
		ArgumentCaptor<ProducerRecord<String, String>> sent = acknowledgeRecords(
				new RecordMetadata(new TopicPartition("valueguard.claims", 1), 8, 0, 99, 5, 0));

		this.publisher.claimIf("account-1", "+4955555", new ClaimCondition("+4912345", 1234L), null, true);

		assertThat(sent.getValue().value()).isEqualTo("+4955555");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.IF_VALUE).value()).asString(UTF_8)
			.isEqualTo("+4912345");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.IF_TIMESTAMP).value()).asString(UTF_8)
			.isEqualTo("1234");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.WAITING)).isNotNull();
		// the claimed value and the one it moves from are both held to a claim's limits, before anything is sent
		assertThatExceptionOfType(ClaimPublisher.InvalidClaimException.class).isThrownBy(
				() -> this.publisher.claimIf("account-1", "+4955555", new ClaimCondition("", null), null, false));
		assertThatExceptionOfType(ClaimPublisher.InvalidClaimException.class).isThrownBy(
				() -> this.publisher.claimIf("account-1", "", new ClaimCondition("+4912345", null), null, false));
	}

	@Test
	void shouldNameTheAuthenticatedCallerOnTheRecord() {
		ArgumentCaptor<ProducerRecord<String, String>> sent = acknowledgeRecords(
				new RecordMetadata(new TopicPartition("valueguard.claims", 2), 40, 1, 1234, 5, 5));

		this.publisher.publish("alice", "phone", "support-desk");

		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.PRINCIPAL).value()).asString(UTF_8)
			.isEqualTo("support-desk");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.WAITING)).isNull();
		// nobody waits for more than the acknowledgement
		then(this.template).should(never()).flush();
	}

	@Test
	void shouldMarkAClaimSomeoneWaitsForSoThatTheKeyStageCommitsItAtOnce() {
		ArgumentCaptor<ProducerRecord<String, String>> sent = acknowledgeRecords(
				new RecordMetadata(new TopicPartition("valueguard.claims", 0), 3, 0, 77, 5, 5));

		assertThat(this.publisher.publishWaitedFor("alice", "phone", null).offset()).isEqualTo(3);
		assertThat(sent.getValue().value()).isEqualTo("phone");
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.WAITING)).isNotNull();
		assertThat(sent.getValue().headers().lastHeader(ClaimHeaders.ERASE)).isNull();
		// it leaves now rather than after the producer's linger
		then(this.template).should().flush();
	}

	@Test
	void shouldLetAWaitedForClaimShareARequestWhileAnotherWriteAwaitsTheBroker() throws Exception {
		RecordMetadata metadata = new RecordMetadata(new TopicPartition("valueguard.claims", 0), 3, 0, 77, 5, 5);
		CompletableFuture<SendResult<String, String>> bobsAcknowledgement = new CompletableFuture<>();
		given(this.template.send("valueguard.claims", "bob", "desk")).willReturn(bobsAcknowledgement);
		acknowledgeRecords(metadata);
		CompletableFuture<ClaimPublisher.Receipt> bob = CompletableFuture
			.supplyAsync(() -> this.publisher.publish("bob", "desk", null));
		await().untilAsserted(() -> then(this.template).should().send("valueguard.claims", "bob", "desk"));

		this.publisher.publishWaitedFor("alice", "phone", null);

		// under load the producer's lingering batches concurrent writes, the waited-for ones too
		then(this.template).should(never()).flush();
		bobsAcknowledgement.complete(new SendResult<>(new ProducerRecord<>("valueguard.claims", "bob", "desk"), metadata));
		assertThat(bob.get(10, TimeUnit.SECONDS).offset()).isEqualTo(3);
		this.publisher.publishWaitedFor("carol", "phone", null);
		then(this.template).should().flush();
	}

	@Test
	void shouldProduceNothingWhenClaimIsInvalid() {
		assertThatExceptionOfType(ClaimPublisher.InvalidClaimException.class)
			.isThrownBy(() -> this.publisher.publish("", "phone", null))
			.satisfies((ex) -> assertThat(ex.rejection()).isEqualTo(ClaimRejection.MISSING_KEY));
		assertThatExceptionOfType(ClaimPublisher.InvalidClaimException.class)
			.isThrownBy(() -> this.publisher.publish("alice", "x".repeat(1025), null));
		verifyNoInteractions(this.template);
	}

	@Test
	void shouldReportUnavailableWhenDeliveryFails() {
		given(this.template.send("valueguard.claims", "alice", "phone"))
			.willReturn(CompletableFuture.failedFuture(new TimeoutException("delivery timed out")));

		assertThatExceptionOfType(ClaimPublisher.PublishFailedException.class)
			.isThrownBy(() -> this.publisher.publish("alice", "phone", null))
			.withMessageContaining("delivery timed out");
	}

	@Test
	void shouldReportUnavailableWhenSendItselfFails() {
		given(this.template.send("valueguard.claims", "alice", null))
			.willThrow(new TimeoutException("Topic valueguard.claims not present in metadata after 5000 ms."));

		assertThatExceptionOfType(ClaimPublisher.PublishFailedException.class)
			.isThrownBy(() -> this.publisher.publish("alice", null, null))
			.withMessageContaining("not present in metadata");
	}

	@Test
	void shouldReportUnavailableWhenTemplateWrapsTheFailure() {
		// what KafkaTemplate really throws when the producer gets no metadata within max.block.ms
		given(this.template.send("valueguard.claims", "alice", "phone"))
			.willThrow(new org.springframework.kafka.KafkaException("Send failed",
					new TimeoutException("Topic valueguard.claims not present in metadata after 5000 ms.")));

		assertThatExceptionOfType(ClaimPublisher.PublishFailedException.class)
			.isThrownBy(() -> this.publisher.publish("alice", "phone", null))
			.withMessageContaining("not present in metadata");
	}

	/** Kafka acknowledges every record sent with headers at {@code metadata}; the captor holds what was sent. */
	private ArgumentCaptor<ProducerRecord<String, String>> acknowledgeRecords(RecordMetadata metadata) {
		ArgumentCaptor<ProducerRecord<String, String>> sent = ArgumentCaptor.captor();
		given(this.template.send(sent.capture())).willAnswer((invocation) -> CompletableFuture
			.completedFuture(new SendResult<>(invocation.getArgument(0), metadata)));
		return sent;
	}

}
