package io.valueguard.store;

import java.util.concurrent.atomic.AtomicLong;

/**
 * When a stage asks Kafka Streams to commit at once instead of at its next scheduled commit: the key stage after it
 * applied verdicts, so that the eviction events leave at once (verdicts arrive just after the value stage commits,
 * which is just after the key stage's own commit whose commands it answered, so a scheduled commit is nearly a whole
 * interval away), and after a claim someone waits for; the value stage, under first-wins, after a ruling that must
 * travel back.
 * <p>
 * At most one such commit is under way at a time, and the next may be asked for only once the stage has processed
 * for a whole commit interval after the last one ended, as Kafka Streams spaces its own commits. Counting from when
 * a commit was asked for is not enough: a commit can take longer than the interval (a busy broker answers a
 * transaction that starts right after the previous one with CONCURRENT_TRANSACTIONS until that one's markers are
 * written, and the producer backs off), and then every record someone waits for would commit on its own, one record
 * per transaction, and a burst of sign-ups would take seconds a claim. So a stage commits at most twice as often as
 * its interval says, with at least an interval of processing between its prompt commits (docs/design.md, "An eviction
 * takes three commits"). One throttle serves all tasks of a stage on an instance: a commit takes every task of the
 * stream thread along.
 */
public final class CommitThrottle {

	private static final long NONE = Long.MIN_VALUE;

	/**
	 * How long an asked-for commit may go without its task committing before the throttle forgets it: a task closed
	 * dirty between the request and the commit never commits, and prompt commits must not stop for good.
	 */
	static final long FORGET_AFTER_MS = 30_000;

	/** When the commit under way was asked for, in wall-clock milliseconds; {@link #NONE} when none is. */
	private final AtomicLong askedAt = new AtomicLong(NONE);

	/** When the stage processed its first record after the last prompt commit: when that commit had ended. */
	private final AtomicLong endedAt = new AtomicLong(Long.MIN_VALUE / 2);

	/** Whether a task of the stage has begun to commit since the commit under way was asked for. */
	private volatile boolean committing;

	/** Whether to ask for a commit now; true at most once per commit, as the class says. */
	public boolean commitNow(long now, long interval) {
		long asked = this.askedAt.get();
		if (asked != NONE && now - asked < FORGET_AFTER_MS) {
			return false;
		}
		if (now - this.endedAt.get() < interval) {
			return false;
		}
		if (!this.askedAt.compareAndSet(asked, now)) {
			return false;
		}
		this.committing = false;
		return true;
	}

	/** A task of the stage is about to commit (its stores' pre-commit moment). */
	public void committing() {
		if (this.askedAt.get() != NONE) {
			this.committing = true;
		}
	}

	/**
	 * The stage processes a record. The first after a commit began comes once that commit has ended, since a stream
	 * thread commits between records: the next interval counts from here.
	 */
	public void processing(long now) {
		if (this.committing) {
			this.committing = false;
			this.endedAt.set(now);
			this.askedAt.set(NONE);
		}
	}

}
