package io.valueguard.messages;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.processor.api.ProcessorContext;

/**
 * Records on an internal topic that ValueGuard never writes (a message without a value, or without the key or value
 * it must name): only a foreign producer writes them. A stage skips them with a warning that names where they are,
 * because failing on them would kill the stream thread again on every replay.
 */
public final class ForeignRecords {

	private static final Log logger = LogFactory.getLog(ForeignRecords.class);

	private ForeignRecords() {
	}

	/**
	 * @param context the processor's context, for the record's topic, partition and offset
	 * @param what what the record should have been ({@code a verdict}, {@code a command})
	 * @param missing what it lacks ({@code value}, {@code key})
	 * @param topic the topic it came from, named when the context has no record (punctuation)
	 */
	public static void skip(ProcessorContext<?, ?> context, String what, String missing, String topic) {
		String source = context.recordMetadata()
			.map((metadata) -> metadata.topic() + "-" + metadata.partition() + " at offset " + metadata.offset())
			.orElse(topic);
		logger.warn("Skipped " + what + " without " + missing + " on " + source + ": ValueGuard never writes one there");
	}

}
