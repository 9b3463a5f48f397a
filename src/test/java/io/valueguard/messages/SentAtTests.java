package io.valueguard.messages;

import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SentAtTests {

	@Test
	void shouldReadTheTimeABatchWasSent() {
		assertThat(SentAt.of(SentAt.add(new RecordHeaders(), 1_796_000_000_123L), 5)).isEqualTo(1_796_000_000_123L);
	}

	@Test
	void shouldTakeTheRecordsOwnTimeForABatchWithoutTheHeader() {
		// a batch from a version before the header, or from a foreign producer
		assertThat(SentAt.of(new RecordHeaders(), 5)).isEqualTo(5);
	}

	@Test
	void shouldTakeTheRecordsOwnTimeForAHeaderItCannotRead() {
		RecordHeaders headers = new RecordHeaders();
		headers.add(SentAt.HEADER, new byte[] { 1, 2, 3 });

		assertThat(SentAt.of(headers, 5)).isEqualTo(5);
	}

	@Test
	void shouldStampTheBatchWithThisMachinesClock() {
		long before = System.currentTimeMillis();

		long sent = SentAt.of(SentAt.add(new RecordHeaders()), 5);

		assertThat(sent).isBetween(before, System.currentTimeMillis());
	}

}
