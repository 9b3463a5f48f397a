package io.valueguard.store;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * When a stage asks Kafka Streams to commit at once instead of at its next scheduled commit: the key stage after it
 * applied verdicts, so that the eviction events leave at once (verdicts arrive just after the value stage commits,
 * which is just after the key stage's own commit whose commands it answered, so a scheduled commit is nearly a whole
 * interval away), and after a claim someone waits for; the value stage, under first-wins, after a ruling that must
 * travel back.
 * <p>
 * At most one such commit per commit interval for all tasks of the stage (a commit takes every task of the stream
 * thread along; {@code valueguard.streams.prompt-commit-interval} may shorten that), so that by default a stage
 * commits at most twice as often as its interval says (docs/design.md, "An eviction takes three commits"). And
 * never while one is under way, nor, while the stage is behind its input, before it has
 * processed for a quarter of the interval after the last one ended: a commit can take longer than the interval (a
 * busy broker answers a transaction that starts right after the previous one with CONCURRENT_TRANSACTIONS until that
 * one's markers are written, and the producer backs off), and then counting from when the last commit was asked for
 * let every record someone waits for commit on its own, one record per transaction.
 * <p>
 * Behind means that the first record processed after the commit waited in its topic for a quarter of the interval
 * or longer (by its timestamp, the claim's creation). A stage that keeps up, as at a few sign-ups a second, processes
 * that record as soon as it arrives, often long after the commit ended; counting the quarter from then refused every
 * other claim its prompt commit. A record whose clock disagrees with this instance's only moves the quarter's
 * guard on or off; the once-per-interval bound holds either way.
 */
public final class CommitThrottle {

	/**
	 * How long an asked-for commit may go without its task committing before the throttle forgets it: a task closed
	 * dirty between the request and the commit never commits, and prompt commits must not stop for good.
	 */
	static final long FORGET_AFTER_MS = 30_000;

	private static final long LONG_AGO = Long.MIN_VALUE / 2;

	/** When a commit was last asked for, in wall-clock milliseconds. */
	private final AtomicLong askedAt = new AtomicLong(LONG_AGO);

	/** When the stage processed its first record after the last prompt commit: when that commit had ended. */
	private final AtomicLong endedAt = new AtomicLong(LONG_AGO);

	/** Whether the commit last asked for has not ended yet. */
	private volatile boolean underWay;

	/** Whether a task of the stage has begun to commit since the commit under way was asked for. */
	private volatile boolean committing;

	/** How long after asking for a commit the stage may ask again; 0: one commit interval. */
	private final long promptInterval;

	/**
	 * @param promptInterval the shortest time between two commits asked for
	 * ({@code valueguard.streams.prompt-commit-interval}); null: the commit interval
	 */
	public CommitThrottle(@Nullable Duration promptInterval) {
		this.promptInterval = (promptInterval != null) ? promptInterval.toMillis() : 0;
	}

	/**
	 * Whether to ask for a commit now; true at most as often as the class says.
	 * @param interval the stage's commit interval ({@code commit.interval.ms})
	 */
	public boolean commitNow(long now, long interval) {
		long asked = this.askedAt.get();
		if (this.underWay && now - asked < FORGET_AFTER_MS) {
			return false;
		}
		long spacing = (this.promptInterval > 0) ? this.promptInterval : interval;
		if (now - asked < spacing || now - this.endedAt.get() < interval / 4) {
			return false;
		}
		if (!this.askedAt.compareAndSet(asked, now)) {
			return false;
		}
		this.committing = false;
		this.underWay = true;
		return true;
	}

	/** A task of the stage is about to commit (its stores' pre-commit moment). */
	public void committing() {
		if (this.underWay) {
			this.committing = true;
		}
	}

	/**
	 * The stage processes a record made at {@code created}. The first after a commit began comes once that commit has
	 * ended, since a stream thread commits between records.
	 */
	public void processing(long now, long created, long interval) {
		if (this.committing) {
			this.committing = false;
			// a record that did not wait long found the stage keeping up: no quarter to wait, as if it ended long ago
			this.endedAt.set((now - created >= interval / 4) ? now : LONG_AGO);
			this.underWay = false;
		}
	}

}
