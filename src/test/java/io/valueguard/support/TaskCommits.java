package io.valueguard.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.store.Outbox;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.willAnswer;

/**
 * A mocked task context that commits as Kafka Streams does, for the processor tests that count when a stage asks for a
 * commit: the task commits once the record that asked for it is processed (the outbox's pre-commit moment comes
 * before the next record), its wall clock is the test's, and its wall-clock punctuations wait to be fired by the test.
 */
public final class TaskCommits {

	private final List<Runnable> beforeCommit = new ArrayList<>();

	/** Punctuations scheduled and not cancelled, by their interval. */
	private final Map<Duration, Punctuator> punctuations = new HashMap<>();

	/** The tasks' wall clock. */
	private long now;

	/** Makes {@code context} (a mock) and its {@code outbox} (a mock) commit, tell the time and punctuate like this. */
	public void wire(ProcessorContext<?, ?> context, Outbox<?> outbox, long commitInterval) {
		willAnswer((call) -> this.beforeCommit.add(call.getArgument(0))).given(outbox).beforeEachCommit(any());
		willAnswer((call) -> {
			scheduledCommit();
			return null;
		}).given(context).commit();
		given(context.schedule(any(), eq(PunctuationType.WALL_CLOCK_TIME), any())).willAnswer((call) -> {
			Duration interval = call.getArgument(0);
			this.punctuations.put(interval, call.getArgument(2));
			return (Cancellable) () -> this.punctuations.remove(interval);
		});
		given(context.appConfigs()).willReturn(Map.of(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, commitInterval));
		given(context.currentSystemTimeMs()).willAnswer((call) -> this.now);
	}

	public void at(long now) {
		this.now = now;
	}

	public long now() {
		return this.now;
	}

	/** A commit nobody asked for: Kafka Streams' own, at its fixed phase. */
	public void scheduledCommit() {
		this.beforeCommit.forEach(Runnable::run);
	}

	/** The intervals of the punctuations scheduled and not cancelled. */
	public Map<Duration, Punctuator> punctuations() {
		return this.punctuations;
	}

	/** Fires the one punctuation scheduled, at {@code now}. */
	public void punctuate(long now) {
		assertThat(this.punctuations).hasSize(1);
		this.now = now;
		this.punctuations.values().iterator().next().punctuate(now);
	}

}
