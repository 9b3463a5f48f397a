package io.valueguard.claims;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * First step of the key stage: validates each raw record of the claims topic. Valid ones go on decoded; invalid
 * ones keep their original bytes and gain headers that say why and where they came from, for the DLQ.
 */
final class ClaimIntakeProcessor implements Processor<byte[], byte[], byte[], ClaimIntakeProcessor.Intake> {

	/** Header names on DLQ records. */
	static final String REASON_HEADER = "valueguard.dlq.reason";

	static final String DESCRIPTION_HEADER = "valueguard.dlq.description";

	static final String TOPIC_HEADER = "valueguard.dlq.topic";

	static final String PARTITION_HEADER = "valueguard.dlq.partition";

	static final String OFFSET_HEADER = "valueguard.dlq.offset";

	/** The validator's verdict on a record, with the record's original value bytes. */
	record Intake(ClaimValidator.Verdict verdict, byte @Nullable [] raw) {

	}

	private final ClaimValidator validator;

	private final KeyStageEvents events;

	private @Nullable ProcessorContext<byte[], Intake> context;

	ClaimIntakeProcessor(ClaimValidator validator, KeyStageEvents events) {
		this.validator = validator;
		this.events = events;
	}

	@Override
	public void init(ProcessorContext<byte[], Intake> context) {
		this.context = context;
	}

	@Override
	public void process(Record<byte[], byte[]> record) {
		ClaimValidator.Verdict verdict = this.validator.validate(record.key(), record.value());
		Intake intake = new Intake(verdict, record.value());
		if (verdict.valid()) {
			this.context.forward(record.withValue(intake));
			return;
		}
		ClaimRejection rejection = verdict.rejection();
		this.events.rejected(rejection);
		this.context.forward(record.withValue(intake).withHeaders(dlqHeaders(record.headers(), rejection)));
	}

	private Headers dlqHeaders(Headers original, ClaimRejection rejection) {
		Headers headers = new RecordHeaders(original.toArray());
		header(headers, REASON_HEADER, rejection.name());
		header(headers, DESCRIPTION_HEADER, rejection.description());
		RecordMetadata source = this.context.recordMetadata().orElse(null);
		if (source != null) {
			header(headers, TOPIC_HEADER, source.topic());
			header(headers, PARTITION_HEADER, Integer.toString(source.partition()));
			header(headers, OFFSET_HEADER, Long.toString(source.offset()));
		}
		return headers;
	}

	private static void header(Headers headers, String name, String value) {
		headers.remove(name);
		headers.add(name, value.getBytes(StandardCharsets.UTF_8));
	}

}
