package io.valueguard.store;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * When a stage asks Kafka Streams to commit at once instead of at its next scheduled commit: the key stage after it
 * applied verdicts, so that the eviction events leave at once (verdicts arrive just after the value stage commits,
 * which is just after the key stage's own commit whose commands it answered, so a scheduled commit is nearly a whole
 * interval away), and after a claim someone waits for; the value stage, under first-wins, after a ruling that must
 * travel back. One throttle serves every task of a stage; it keeps its account per stream thread, since a commit
 * takes every task of its thread along, and only those.
 * <p>
 * Not before half a commit interval has passed since the thread's last commit of any kind began, scheduled or asked
 * for ({@code valueguard.streams.prompt-commit-interval} may set another spacing), so that a stage commits at most
 * about twice as often as its interval says (docs/design.md, "An eviction takes three commits"). Counting from any
 * commit, not from the last one asked for, is what keeps a prompt commit from being spent at a fixed phase: Kafka
 * Streams' own schedule does not move when a task asks for a commit, and a claim that followed the last asked-for
 * commit within an interval waited for the scheduled one, up to a whole interval.
 * <p>
 * And never while one is asked for and not yet begun, nor, while the stage is behind its input, before it has
 * processed for a quarter of the interval after the last one ended: a commit can take longer than the interval (a
 * busy broker answers a transaction that starts right after the previous one with CONCURRENT_TRANSACTIONS until that
 * one's markers are written, and the producer backs off), and then counting from its start alone let every record
 * someone waits for commit on its own, one record per transaction.
 * <p>
 * Behind means that the first record processed after the commit waited in its topic for a quarter of the interval
 * or longer (a command batch from when the key stage sent it; anything else from its timestamp, the claim's
 * creation), and entered its topic before the commit began or within a quarter of the interval after. Timed from the
 * claim, a command that had waited for the key stage's commit looked behind to the value stage and held a first-wins
 * grant's commit back for a quarter of an interval (2026-12-04). Verdicts are still timed from their claim: under
 * load the key stage's first record after a commit is often a fresh verdict while claims back up behind it. A stage
 * that keeps up, as at a few sign-ups a second, processes that record as soon as it arrives, often long after the
 * commit ended; counting the quarter from then refused every other claim its prompt
 * commit. And a record made well after the commit began did not wait for it: a command that reaches the value stage
 * late waited for the key stage's commit, while the value stage sat idle, and taking that for a backlog refused every
 * first-wins grant its prompt commit. A record whose clock disagrees with this instance's only moves the quarter's
 * guard on or off; the spacing holds either way.
 * <p>
 * The times come from the tasks' contexts, and a task's clock moves only when the task processes a record or
 * punctuates: at a commit, a task that processed nothing lately tells a time long past (by 20 to 100 ms in half the
 * key stage's commits at one sign-up after another, 2026-12-04). So a commit counts as begun at the latest time any
 * task of the thread told, not at the last one it heard of, which would let the next prompt commit come early, at no
 * fixed spacing.
 */
public final class CommitThrottle {

	/**
	 * How long an asked-for commit may go without its task committing before the throttle forgets it: a task closed
	 * dirty between the request and the commit never commits, and prompt commits must not stop for good.
	 */
	static final long FORGET_AFTER_MS = 30_000;

	private static final long LONG_AGO = Long.MIN_VALUE / 2;

	/** How long after a commit began the stage may ask for another; 0: half the commit interval. */
	private final long spacing;

	/** Each stream thread's account: its commits are its own, and only its own thread reads or writes it. */
	private final ThreadLocal<Account> accounts = ThreadLocal.withInitial(Account::new);

	/**
	 * @param spacing the shortest time from the start of a commit until the stage asks for another
	 * ({@code valueguard.streams.prompt-commit-interval}); null: half the commit interval
	 */
	public CommitThrottle(@Nullable Duration spacing) {
		this.spacing = (spacing != null) ? spacing.toMillis() : 0;
	}

	/**
	 * Whether to ask for a commit now; true at most as often as the class says, and then counted as asked for.
	 * @param interval the stage's commit interval ({@code commit.interval.ms})
	 */
	public boolean commitNow(long now, long interval) {
		Account account = told(now);
		if (asked(account, now) || now < allowedFrom(account, interval)) {
			return false;
		}
		account.askedAt = now;
		account.asked = true;
		return true;
	}

	/**
	 * When {@link #commitNow} may next say yes, or {@link Long#MAX_VALUE} while a commit is asked for already: that
	 * one takes every task's work along.
	 */
	public long nextAllowed(long now, long interval) {
		Account account = told(now);
		return asked(account, now) ? Long.MAX_VALUE : allowedFrom(account, interval);
	}

	/** A task of the stage is about to commit (its stores' pre-commit moment), whoever asked for it. */
	public void committing(long now) {
		Account account = told(now);
		account.asked = false;
		account.committing = true;
		// each task of the commit tells it, some with a clock long stopped: the latest time of the thread is nearest
		account.startedAt = account.latest;
	}

	/**
	 * The stage processes a record that entered its topic at {@code created} (see the class's "behind"). The first
	 * after a commit began comes once that commit has ended, since a stream thread commits between records.
	 */
	public void processing(long now, long created, long interval) {
		Account account = told(now);
		if (account.committing) {
			account.committing = false;
			// a record that did not wait long found the stage keeping up, and one made well after the commit began
			// waited for something else (a command, for the key stage's commit): no quarter to wait for either
			boolean behind = now - created >= interval / 4 && created < account.startedAt + interval / 4;
			account.endedAt = behind ? now : LONG_AGO;
		}
	}

	/** The calling thread's account, which learns that the time is at least {@code now}. */
	private Account told(long now) {
		Account account = this.accounts.get();
		account.latest = Math.max(account.latest, now);
		return account;
	}

	private static boolean asked(Account account, long now) {
		return account.asked && now - account.askedAt < FORGET_AFTER_MS;
	}

	private long allowedFrom(Account account, long interval) {
		long spacing = (this.spacing > 0) ? this.spacing : interval / 2;
		return Math.max(account.startedAt + spacing, account.endedAt + interval / 4);
	}

	private static final class Account {

		/** When a commit was last asked for, in wall-clock milliseconds. */
		private long askedAt = LONG_AGO;

		/** Whether the commit last asked for has not begun yet. */
		private boolean asked;

		/** When the thread's last commit began. */
		private long startedAt = LONG_AGO;

		/** Whether a commit has begun and no record has been processed since. */
		private boolean committing;

		/** When the last commit ended, if the stage was behind its input then; long ago otherwise. */
		private long endedAt = LONG_AGO;

		/** The latest time a task of the thread told. */
		private long latest = LONG_AGO;

	}

}
