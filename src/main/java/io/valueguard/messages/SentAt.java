package io.valueguard.messages;

import java.nio.ByteBuffer;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * When the key stage sent a command batch (its commit began), as a header of the batch: how long the batch then
 * waited in its topic is what tells the value stage's commit throttle whether the stage is behind its input. The
 * record's own timestamp is the claim's, which says nothing of that: a command waits for the key stage's commit
 * before the value stage can read it at all, so timed from the claim a command made just after the value stage's
 * last commit began looked like a backlog and kept a first-wins grant's commit back for a quarter of an interval.
 * Verdict batches go without it: the key stage's guard reads its claims' backlog through them (docs/design.md).
 */
public final class SentAt {

	public static final String HEADER = "valueguard.sent";

	private SentAt() {
	}

	/** Adds the header: sent now, by this machine's wall clock. */
	public static Headers add(Headers headers) {
		return add(headers, System.currentTimeMillis());
	}

	/** Adds the header: sent at {@code sentAt}, in wall-clock milliseconds. */
	public static Headers add(Headers headers, long sentAt) {
		return headers.add(HEADER, ByteBuffer.allocate(Long.BYTES).putLong(sentAt).array());
	}

	/** When the batch was sent, or {@code otherwise} for a record without the header (or one it cannot read). */
	public static long of(Headers headers, long otherwise) {
		Header sent = headers.lastHeader(HEADER);
		if (sent == null || sent.value() == null || sent.value().length != Long.BYTES) {
			return otherwise;
		}
		return ByteBuffer.wrap(sent.value()).getLong();
	}

}
