package io.valueguard.claims;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.support.SendResult;
import org.springframework.stereotype.Component;

/**
 * Writes claims and tombstones to the claims topic on behalf of the REST API, after the same validation the stream
 * applies, and waits for the broker's acknowledgement so that a 202 means the record is durable.
 */
@Component
public class ClaimPublisher {

	private static final Log logger = LogFactory.getLog(ClaimPublisher.class);

	/** How much longer than the producer's delivery.timeout.ms to wait, so the producer's own verdict comes first. */
	private static final Duration SEND_MARGIN = Duration.ofSeconds(5);

	/** Where the record went: topic, partition, offset and the timestamp that is the claim's time. */
	public record Receipt(String key, @Nullable String value, String topic, int partition, long offset,
			long timestamp) {

	}

	/** The record failed validation; nothing was produced. */
	public static final class InvalidClaimException extends RuntimeException {

		private final ClaimRejection rejection;

		public InvalidClaimException(ClaimRejection rejection) {
			super(rejection.description());
			this.rejection = rejection;
		}

		public ClaimRejection rejection() {
			return this.rejection;
		}

	}

	/** The broker did not acknowledge the record in time. */
	public static final class PublishFailedException extends RuntimeException {

		PublishFailedException(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

	private final KafkaTemplate<String, String> template;

	private final ClaimValidator validator;

	private final ClaimFormat format;

	private final String topic;

	private final Duration sendTimeout;

	private static final byte[] FLAG = "true".getBytes(StandardCharsets.UTF_8);

	/** Writes sent and not yet acknowledged (or failed). */
	private final AtomicInteger unacknowledged = new AtomicInteger();

	/** Whether the last write failed: failures are logged when they start and end, not once per request. */
	private final AtomicBoolean failing = new AtomicBoolean();

	public ClaimPublisher(KafkaTemplate<String, String> template, ValueGuardProperties properties) {
		this.template = template;
		this.format = ClaimFormat.of(properties.claims());
		this.validator = new ClaimValidator(properties.limits(), this.format);
		this.topic = properties.topics().claims();
		this.sendTimeout = properties.publisher().deliveryTimeout().plus(SEND_MARGIN);
	}

	/**
	 * Claims {@code value} for {@code key}, or gives up whatever the key holds when {@code value} is null.
	 * @param principal who asks, named on the record ({@link ClaimHeaders#PRINCIPAL}); null for an unauthenticated
	 * caller
	 */
	public Receipt publish(String key, @Nullable String value, @Nullable String principal) {
		return send(key, value, false, false, principal, null);
	}

	/**
	 * The same, for a caller that waits for the ruling ({@code ?wait=}): the record carries the header
	 * {@code valueguard.waiting}, so that the key stage commits it at once rather than at its next scheduled commit,
	 * and it leaves at once, without lingering, unless other writes await the broker.
	 */
	public Receipt publishWaitedFor(String key, @Nullable String value, @Nullable String principal) {
		return send(key, value, false, true, principal, null);
	}

	/**
	 * Asks for the key's name to be erased: a tombstone with the header {@code valueguard.erase} (docs/design.md,
	 * "Erasure").
	 * @param waitedFor a caller waits until both stages have erased it ({@code ?wait=}): the record is marked and sent
	 * as a waited-for claim is, so that each stage commits its part as soon as it has done it
	 */
	public Receipt erase(String key, @Nullable String principal, boolean waitedFor) {
		return send(key, null, true, waitedFor, principal, null);
	}

	/**
	 * Gives up the key's claim only if it is still the one {@code condition} names: a tombstone with the headers
	 * {@code valueguard.if-value} and {@code valueguard.if-timestamp} ({@link ClaimCondition}).
	 */
	public Receipt releaseIf(String key, ClaimCondition condition, @Nullable String principal, boolean waitedFor) {
		return send(key, null, false, waitedFor, principal, condition);
	}

	/**
	 * Claims {@code value} for {@code key} only if the key's latest claim is still the one {@code condition} names (a
	 * move from that value): a claim with the headers {@code valueguard.if-value} and {@code valueguard.if-timestamp}.
	 */
	public Receipt claimIf(String key, String value, ClaimCondition condition, @Nullable String principal,
			boolean waitedFor) {
		validate(key, condition.value());
		return send(key, value, false, waitedFor, principal, condition);
	}

	/**
	 * Checks a key and a value against the limits a claim must keep.
	 * @throws InvalidClaimException when they do not
	 */
	public void validate(String key, @Nullable String value) {
		ClaimRejection rejection = this.validator.validateText(key, value);
		if (rejection != null) {
			throw new InvalidClaimException(rejection);
		}
	}

	private Receipt send(String key, @Nullable String value, boolean erase, boolean waitedFor,
			@Nullable String principal, @Nullable ClaimCondition condition) {
		// a conditional release's value must be one a claim could have had (a conditional claim's is checked apart)
		validate(key, (condition != null && value == null) ? condition.value() : value);
		int othersUnacknowledged = this.unacknowledged.getAndIncrement();
		try {
			String record = (value != null) ? this.format.write(value) : null;
			CompletableFuture<SendResult<String, String>> sending = (erase || waitedFor || principal != null
					|| condition != null)
					? this.template.send(withHeaders(key, record, erase, waitedFor, principal, condition))
					: this.template.send(this.topic, key, record);
			if (waitedFor && othersUnacknowledged == 0) {
				// the caller waits for the ruling on its user's clock, and no other write awaits the broker that it
				// could share a request with: out now, not after lingering for company (linger.ms); under load the
				// lingering stays, since flushing every record would cost the broker a request each
				this.template.flush();
			}
			SendResult<String, String> result = sending.get(this.sendTimeout.toMillis(), TimeUnit.MILLISECONDS);
			RecordMetadata metadata = result.getRecordMetadata();
			if (this.failing.compareAndSet(true, false)) {
				logger.info("Kafka takes writes to " + this.topic + " again");
			}
			return new Receipt(key, value, metadata.topic(), metadata.partition(), metadata.offset(),
					metadata.timestamp());
		}
		catch (ExecutionException ex) {
			throw failed("Kafka did not accept the record: " + rootMessage(ex), ex.getCause());
		}
		catch (RuntimeException ex) {
			// thrown by send itself (KafkaTemplate wraps the client's error in its own KafkaException), for example
			// when no metadata arrives within max.block.ms or the buffer stays full: the broker did not take it
			throw failed("Kafka did not accept the record: " + rootMessage(ex), ex);
		}
		catch (TimeoutException ex) {
			throw failed("Kafka did not acknowledge the record within " + this.sendTimeout.toSeconds() + "s", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new PublishFailedException("Interrupted while waiting for Kafka", ex);
		}
		finally {
			this.unacknowledged.decrementAndGet();
		}
	}

	private ProducerRecord<String, String> withHeaders(String key, @Nullable String value, boolean erase,
			boolean waitedFor, @Nullable String principal, @Nullable ClaimCondition condition) {
		ProducerRecord<String, String> record = new ProducerRecord<>(this.topic, key, value);
		if (condition != null) {
			record.headers().add(ClaimHeaders.IF_VALUE, condition.value().getBytes(StandardCharsets.UTF_8));
			if (condition.timestamp() != null) {
				record.headers()
					.add(ClaimHeaders.IF_TIMESTAMP, Long.toString(condition.timestamp()).getBytes(StandardCharsets.UTF_8));
			}
		}
		if (principal != null) {
			record.headers().add(ClaimHeaders.PRINCIPAL, principal.getBytes(StandardCharsets.UTF_8));
		}
		if (erase) {
			record.headers().add(ClaimHeaders.ERASE, FLAG);
		}
		if (waitedFor) {
			record.headers().add(ClaimHeaders.WAITING, FLAG);
		}
		return record;
	}

	private PublishFailedException failed(String message, @Nullable Throwable cause) {
		if (this.failing.compareAndSet(false, true)) {
			logger.warn("Writes to " + this.topic + " are failing; REST writes answer 503 until Kafka takes them "
					+ "again. " + message);
		}
		return new PublishFailedException(message, cause);
	}

	private static String rootMessage(Throwable ex) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(ex);
		return root.getClass().getSimpleName() + ": " + root.getMessage();
	}

}
