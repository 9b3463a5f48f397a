package io.valueguard.claims;

import java.nio.charset.StandardCharsets;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.jspecify.annotations.Nullable;

/**
 * The headers of an invalid claims record on the DLQ: its own, and why it was rejected and where it came from; and
 * the headers of a claims record rerouted to its key's partition, which say where it came from, so that its dead
 * letter, if it becomes one there, names the claims topic's partition and offset, not the internal topic's.
 */
final class DeadLetterHeaders {

	static final String REASON_HEADER = "valueguard.dlq.reason";

	static final String DESCRIPTION_HEADER = "valueguard.dlq.description";

	static final String TOPIC_HEADER = "valueguard.dlq.topic";

	static final String PARTITION_HEADER = "valueguard.dlq.partition";

	static final String OFFSET_HEADER = "valueguard.dlq.offset";

	static final String ORIGIN_TOPIC_HEADER = "valueguard.origin.topic";

	static final String ORIGIN_PARTITION_HEADER = "valueguard.origin.partition";

	static final String ORIGIN_OFFSET_HEADER = "valueguard.origin.offset";

	private DeadLetterHeaders() {
	}

	/**
	 * @param source where the record was read
	 * @param rerouted whether it was read from the rerouted-claims topic, whose records name their origin
	 */
	static Headers of(Headers original, ClaimRejection rejection, @Nullable RecordMetadata source, boolean rerouted) {
		Headers headers = new RecordHeaders(original.toArray());
		header(headers, REASON_HEADER, rejection.name());
		header(headers, DESCRIPTION_HEADER, rejection.description());
		Origin origin = rerouted ? Origin.of(original) : null;
		if (origin != null) {
			header(headers, TOPIC_HEADER, origin.topic());
			header(headers, PARTITION_HEADER, origin.partition());
			header(headers, OFFSET_HEADER, origin.offset());
		}
		else if (source != null) {
			header(headers, TOPIC_HEADER, source.topic());
			header(headers, PARTITION_HEADER, Integer.toString(source.partition()));
			header(headers, OFFSET_HEADER, Long.toString(source.offset()));
		}
		return headers;
	}

	/** The headers of a claims record on its way to its key's partition: its own, and where it was read. */
	static Headers rerouted(Headers original, RecordMetadata source) {
		Headers headers = new RecordHeaders(original.toArray());
		header(headers, ORIGIN_TOPIC_HEADER, source.topic());
		header(headers, ORIGIN_PARTITION_HEADER, Integer.toString(source.partition()));
		header(headers, ORIGIN_OFFSET_HEADER, Long.toString(source.offset()));
		return headers;
	}

	private static void header(Headers headers, String name, String value) {
		headers.remove(name);
		headers.add(name, value.getBytes(StandardCharsets.UTF_8));
	}

	/** Where a rerouted record was read, as its headers say. */
	private record Origin(String topic, String partition, String offset) {

		static @Nullable Origin of(Headers headers) {
			Header topic = headers.lastHeader(ORIGIN_TOPIC_HEADER);
			Header partition = headers.lastHeader(ORIGIN_PARTITION_HEADER);
			Header offset = headers.lastHeader(ORIGIN_OFFSET_HEADER);
			if (topic == null || partition == null || offset == null) {
				return null;
			}
			return new Origin(text(topic), text(partition), text(offset));
		}

		private static String text(Header header) {
			return (header.value() != null) ? new String(header.value(), StandardCharsets.UTF_8) : "";
		}

	}

}
