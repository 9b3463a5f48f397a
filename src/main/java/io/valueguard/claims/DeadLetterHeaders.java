package io.valueguard.claims;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.jspecify.annotations.Nullable;

/** The headers of an invalid claims record on the DLQ: its own, and why it was rejected and where it came from. */
final class DeadLetterHeaders {

	static final String REASON_HEADER = "valueguard.dlq.reason";

	static final String DESCRIPTION_HEADER = "valueguard.dlq.description";

	static final String TOPIC_HEADER = "valueguard.dlq.topic";

	static final String PARTITION_HEADER = "valueguard.dlq.partition";

	static final String OFFSET_HEADER = "valueguard.dlq.offset";

	private DeadLetterHeaders() {
	}

	static Headers of(Headers original, ClaimRejection rejection, @Nullable RecordMetadata source) {
		Headers headers = new RecordHeaders(original.toArray());
		header(headers, REASON_HEADER, rejection.name());
		header(headers, DESCRIPTION_HEADER, rejection.description());
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
