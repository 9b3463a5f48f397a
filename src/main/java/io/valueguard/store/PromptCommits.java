package io.valueguard.store;

import java.time.Duration;

import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.jspecify.annotations.Nullable;

/**
 * One task's commits out of turn, as its stage's {@link CommitThrottle} allows them. Work whose effect someone is
 * waiting for right now, a claim sent with {@code ?wait=}, is not left to the scheduled commit when the throttle says
 * "not yet": the task asks again at the first moment the throttle allows, unless a commit of its thread, scheduled or
 * asked for by another task, takes the work along first. Other work asks only once (evictions, rulings): the
 * scheduled commit is never more than an interval away, and under load the stage commits often enough.
 */
public final class PromptCommits {

	private final CommitThrottle throttle;

	private @Nullable ProcessorContext<?, ?> context;

	/** The stage's commit interval ({@code commit.interval.ms}). */
	private long interval;

	/** The task's next try at a commit for work someone waits for, while there is one. */
	private @Nullable Cancellable retry;

	public PromptCommits(CommitThrottle throttle) {
		this.throttle = throttle;
	}

	/** From the processor's {@code init}: its context, and the outbox whose pre-commit moment tells of every commit. */
	public void connect(ProcessorContext<?, ?> context, Outbox<?> outbox) {
		this.context = context;
		// appConfigs() holds the resolved settings, Kafka's default for the guarantee included
		this.interval = ((Number) context.appConfigs().get(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG)).longValue();
		outbox.beforeEachCommit(this::committing);
	}

	/**
	 * The task is about to process a record that entered its topic at {@code sent}: for a command batch the time the
	 * key stage sent it, for anything else its timestamp (see {@link CommitThrottle}).
	 */
	public void processing(long sent) {
		this.throttle.processing(this.context.currentSystemTimeMs(), sent, this.interval);
	}

	/** Asks for a commit if the throttle allows one now; otherwise the next commit, whenever it comes, will do. */
	public void askNow() {
		if (this.throttle.commitNow(this.context.currentSystemTimeMs(), this.interval)) {
			this.context.commit();
		}
	}

	/** Asks for a commit now if the throttle allows it, and otherwise as soon as it does, unless one comes first. */
	public void askSoon() {
		long now = this.context.currentSystemTimeMs();
		if (this.throttle.commitNow(now, this.interval)) {
			cancelRetry();
			this.context.commit();
			return;
		}
		long allowed = this.throttle.nextAllowed(now, this.interval);
		if (this.retry == null && allowed != Long.MAX_VALUE) {
			this.retry = this.context.schedule(Duration.ofMillis(Math.max(1, allowed - now)),
					PunctuationType.WALL_CLOCK_TIME, (timestamp) -> {
						cancelRetry();
						askSoon();
					});
		}
	}

	/** The task commits, and its work with it: no retry is needed any more. */
	private void committing() {
		this.throttle.committing(this.context.currentSystemTimeMs());
		cancelRetry();
	}

	private void cancelRetry() {
		if (this.retry != null) {
			this.retry.cancel();
			this.retry = null;
		}
	}

}
