package io.valueguard.system;

import org.apache.kafka.streams.processor.api.ProcessorContext;

/** Where the record a processor is working on came from, for log lines about it. */
public final class RecordSource {

	private RecordSource() {
	}

	/** {@code topic-partition at offset n}, or {@code otherwise} when the record has no source (punctuation). */
	public static String of(ProcessorContext<?, ?> context, String otherwise) {
		return context.recordMetadata()
			.map((metadata) -> metadata.topic() + "-" + metadata.partition() + " at offset " + metadata.offset())
			.orElse(otherwise);
	}

}
