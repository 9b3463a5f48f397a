package io.valueguard.store;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

class AppliedInputTests {

	private static final String CLAIMS = "valueguard.claims";

	private static final String VERDICTS = "valueguard-eviction-feedback";

	private final AtomicInteger passedOver = new AtomicInteger();

	private KeyValueStore<String, Long> marks;

	@BeforeEach
	void openMarks() {
		this.marks = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("marks"), Serdes.String(), Serdes.Long())
			.withLoggingDisabled()
			.build();
		this.marks.init(new MockProcessorContext<String, String>().getStateStoreContext(), this.marks);
	}

	@Test
	void shouldApplyEveryRecordOfAFirstRunAndKeepTheMarksOnlyWhenTheTaskCommits() {
		AppliedInput applied = task();
		assertThat(applyAll(applied, CLAIMS, 3, 0, 5)).containsExactly(0L, 1L, 2L, 3L, 4L);
		assertThat(this.marks.get(CLAIMS + "-3")).as("before the commit").isNull();

		applied.flushCache();

		assertThat(this.marks.get(CLAIMS + "-3")).isEqualTo(4L);
		assertThat(this.passedOver).hasValue(0);
	}

	@Test
	void shouldPassOverWhatATaskAppliedBeforeWhenTheCommittedOffsetWentBack() {
		AppliedInput before = task();
		applyAll(before, CLAIMS, 0, 0, 10);
		before.flushCache();
		before.close();

		// the next task of the partition restores the marks, and Kafka hands it the input from offset 4 again
		AppliedInput after = task();
		assertThat(applyAll(after, CLAIMS, 0, 4, 12)).containsExactly(10L, 11L);
		assertThat(this.passedOver).hasValue(6);
		after.flushCache();
		assertThat(this.marks.get(CLAIMS + "-0")).isEqualTo(11L);
	}

	@Test
	void shouldApplyAgainWhatAFailedTaskAppliedSinceItsLastCommit() {
		AppliedInput applied = task();
		applyAll(applied, CLAIMS, 0, 0, 5);
		applied.flushCache();
		applyAll(applied, CLAIMS, 0, 5, 9);

		// the task fails: its transaction aborts, and its input replays from the last commit, which is the mark
		applied.clearCache();

		assertThat(applyAll(applied, CLAIMS, 0, 5, 9)).containsExactly(5L, 6L, 7L, 8L);
		assertThat(this.passedOver).hasValue(0);
	}

	@Test
	void shouldKeepAMarkPerTopicAndPartition() {
		AppliedInput before = task();
		applyAll(before, CLAIMS, 0, 0, 8);
		applyAll(before, CLAIMS, 1, 0, 2);
		applyAll(before, VERDICTS, 0, 0, 3);
		before.flushCache();

		AppliedInput after = task();
		assertThat(applyAll(after, VERDICTS, 0, 0, 5)).containsExactly(3L, 4L);
		assertThat(applyAll(after, CLAIMS, 1, 0, 5)).containsExactly(2L, 3L, 4L);
		assertThat(applyAll(after, CLAIMS, 0, 7, 9)).containsExactly(8L);
		assertThat(this.passedOver).hasValue(3 + 2 + 1);
	}

	@Test
	void shouldApplyWorkThatNoInputRecordStarted() {
		AppliedInput applied = task();
		applyAll(applied, CLAIMS, 0, 0, 3);

		assertThat(applied.firstTime(Optional.empty())).isTrue();
		assertThat(applied.firstTime(Optional.of(metadata(CLAIMS, 0, -1)))).isTrue();
	}

	/** Applies offsets {@code from} (inclusive) to {@code to} (exclusive) of a partition; returns the ones applied. */
	private static List<Long> applyAll(AppliedInput applied, String topic, int partition, long from, long to) {
		List<Long> firstTime = new ArrayList<>();
		LongStream.range(from, to)
			.filter((offset) -> applied.firstTime(Optional.of(metadata(topic, partition, offset))))
			.forEach(firstTime::add);
		return firstTime;
	}

	@Test
	void shouldPassOverNothingAndKeepNoMarksUnderAtLeastOnce() {
		AppliedInput before = task(StreamsConfig.AT_LEAST_ONCE);
		applyAll(before, CLAIMS, 0, 0, 10);
		before.flushCache();
		assertThat(this.marks.get(CLAIMS + "-0")).isNull();

		AppliedInput after = task(StreamsConfig.AT_LEAST_ONCE);
		assertThat(applyAll(after, CLAIMS, 0, 4, 6)).containsExactly(4L, 5L);
		assertThat(this.passedOver).hasValue(0);
	}

	@Test
	void shouldStartWithoutMarksOnATopicCreatedAgain() {
		AppliedInput before = task(StreamsConfig.EXACTLY_ONCE_V2, CLAIMS + "=first," + VERDICTS + "=verdicts");
		applyAll(before, CLAIMS, 0, 0, 10);
		before.flushCache();

		// the claims topic deleted and created again beside the changelog that keeps the old marks
		AppliedInput after = task(StreamsConfig.EXACTLY_ONCE_V2, CLAIMS + "=second," + VERDICTS + "=verdicts");
		assertThat(applyAll(after, CLAIMS, 0, 0, 3)).containsExactly(0L, 1L, 2L);
		assertThat(this.passedOver).hasValue(0);

		AppliedInput again = task(StreamsConfig.EXACTLY_ONCE_V2, CLAIMS + "=first," + VERDICTS + "=verdicts");
		assertThat(applyAll(again, CLAIMS, 0, 8, 12)).as("the first topic's marks").containsExactly(10L, 11L);
	}

	private AppliedInput task() {
		return task(StreamsConfig.EXACTLY_ONCE_V2);
	}

	private AppliedInput task(String guarantee) {
		return task(guarantee, null);
	}

	@SuppressWarnings("unchecked")
	private AppliedInput task(String guarantee, String topicIds) {
		AppliedInput applied = AppliedInput.builder("applied").build();
		applied.init(new MockProcessorContext<String, String>().getStateStoreContext(), applied);
		InternalProcessorContext<Object, Object> context = mock(InternalProcessorContext.class);
		Map<String, Object> configuration = new HashMap<>(Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, guarantee));
		if (topicIds != null) {
			configuration.put(AppliedInput.INPUT_TOPIC_IDS, topicIds);
		}
		given(context.appConfigs()).willReturn(configuration);
		applied.connect(context, this.marks, this.passedOver::incrementAndGet);
		return applied;
	}

	private static RecordMetadata metadata(String topic, int partition, long offset) {
		return new RecordMetadata() {

			@Override
			public String topic() {
				return topic;
			}

			@Override
			public int partition() {
				return partition;
			}

			@Override
			public long offset() {
				return offset;
			}

		};
	}

}
