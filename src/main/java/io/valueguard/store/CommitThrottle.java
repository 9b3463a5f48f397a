package io.valueguard.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * When a stage asks Kafka Streams to commit at once instead of at its next scheduled commit: the key stage after it
 * applied verdicts, so that the eviction events leave at once (verdicts arrive just after the value stage commits,
 * which is just after the key stage's own commit whose commands it answered, so a scheduled commit is nearly a whole
 * interval away), and after a claim someone waits for; the value stage, under first-wins, after a ruling that must
 * travel back. At most one such commit per commit interval for all tasks of the stage (a commit takes every task of a
 * thread along), so a stage commits at most twice as often as its interval says (docs/design.md, "An eviction takes
 * three commits").
 */
public final class CommitThrottle {

	/** When a commit was last asked for, in wall-clock milliseconds. */
	private final AtomicLong askedAt = new AtomicLong(Long.MIN_VALUE / 2);

	/** Whether to ask for a commit now; true at most once per {@code interval} milliseconds. */
	public boolean commitNow(long now, long interval) {
		long last = this.askedAt.get();
		return now - last >= interval && this.askedAt.compareAndSet(last, now);
	}

}
