package io.valueguard.store;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommitThrottleTests {

	private static final long INTERVAL = 100;

	private final CommitThrottle throttle = new CommitThrottle(null);

	@Test
	void shouldAskOnceWhileACommitIsAskedFor() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		assertThat(this.throttle.commitNow(1, INTERVAL)).isFalse();
		// records of the same round, before the commit began
		this.throttle.processing(2, 0, INTERVAL);
		assertThat(this.throttle.commitNow(500, INTERVAL)).isFalse();
		assertThat(this.throttle.nextAllowed(500, INTERVAL)).isEqualTo(Long.MAX_VALUE);
	}

	@Test
	void shouldAskAgainHalfAnIntervalAfterTheLastCommitBegan() {
		promptCommitEnded(this.throttle, 10, 5);

		assertThat(this.throttle.nextAllowed(10, INTERVAL)).isEqualTo(INTERVAL / 2);
		assertThat(this.throttle.commitNow(INTERVAL / 2 - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(INTERVAL / 2, INTERVAL)).isTrue();
	}

	@Test
	void shouldCountFromAScheduledCommitAsFromAnAskedOne() {
		// Kafka Streams' own commit, which nobody asked for, takes the work along just as well
		this.throttle.committing(1_000);
		this.throttle.processing(1_010, 1_008, INTERVAL);

		assertThat(this.throttle.commitNow(1_000 + INTERVAL / 2 - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(1_000 + INTERVAL / 2, INTERVAL)).isTrue();
	}

	@Test
	void shouldCountACommitFromTheLatestTimeATaskOfTheThreadTold() {
		// task 1 processes a claim at 1,000 and asks; task 2 processed nothing since 600, and its clock says so
		this.throttle.processing(1_000, 998, INTERVAL);
		assertThat(this.throttle.commitNow(1_000, INTERVAL)).isTrue();
		this.throttle.committing(1_000);
		this.throttle.committing(600);
		this.throttle.processing(1_030, 1_010, INTERVAL);

		assertThat(this.throttle.commitNow(1_030, INTERVAL)).isFalse();
		assertThat(this.throttle.nextAllowed(1_030, INTERVAL)).isEqualTo(1_000 + INTERVAL / 2);
	}

	@Test
	void shouldNotSpendItsCommitAtAFixedPhase() {
		// asked at 0, again at 50: two commits in one interval, each half an interval after the one before
		promptCommitEnded(this.throttle, 30, 28);
		assertThat(this.throttle.commitNow(INTERVAL / 2, INTERVAL)).isTrue();
		this.throttle.committing(INTERVAL / 2);
		this.throttle.processing(80, 78, INTERVAL);

		assertThat(this.throttle.commitNow(INTERVAL - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(INTERVAL, INTERVAL)).isTrue();
	}

	@Test
	void shouldLeaveTimeToProcessAfterACommitSlowerThanTheInterval() {
		// the commit took a second, and the input waited through it: counting from its start alone would commit
		// again at once, one record per commit
		promptCommitEnded(this.throttle, 1_000, 10);
		assertThat(this.throttle.commitNow(1_000, INTERVAL)).isFalse();
		assertThat(this.throttle.nextAllowed(1_000, INTERVAL)).isEqualTo(1_000 + INTERVAL / 4);
		assertThat(this.throttle.commitNow(1_000 + INTERVAL / 4 - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(1_000 + INTERVAL / 4, INTERVAL)).isTrue();
	}

	@Test
	void shouldNotMakeAStageThatKeepsUpWaitAQuarterIntervalAfterACommit() {
		// the next sign-up arrives 150 ms later and is processed 5 ms after it was made: the commit ended long ago
		promptCommitEnded(this.throttle, 150, 145);

		assertThat(this.throttle.commitNow(150, INTERVAL)).isTrue();
	}

	@Test
	void shouldMakeAStageBehindItsInputProcessAQuarterIntervalAfterACommit() {
		// the first record after the commit, made as it began, waited a quarter interval: the stage has input waiting
		promptCommitEnded(this.throttle, 150, INTERVAL / 4 - 1);

		assertThat(this.throttle.commitNow(150, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(150 + INTERVAL / 4, INTERVAL)).isTrue();
	}

	@Test
	void shouldNotTakeARecordMadeLongAfterTheCommitBeganForABacklog() {
		// the value stage committed at 0 and sat idle; a command made at 140 reached it at 200, after the key stage's
		// commit: it waited upstream, not for this stage
		promptCommitEnded(this.throttle, 200, 140);

		assertThat(this.throttle.commitNow(200, INTERVAL)).isTrue();
	}

	@Test
	void shouldAskAgainAfterTheSpacingWhenOneIsSet() {
		CommitThrottle throttle = new CommitThrottle(Duration.ofMillis(20));
		promptCommitEnded(throttle, 15, 13);

		assertThat(throttle.commitNow(19, INTERVAL)).isFalse();
		assertThat(throttle.commitNow(20, INTERVAL)).isTrue();
	}

	@Test
	void shouldKeepTheQuarterOfTheCommitIntervalWithAShorterSpacing() {
		CommitThrottle throttle = new CommitThrottle(Duration.ofMillis(20));
		// behind its input: the guard against one record per transaction counts in commit intervals
		promptCommitEnded(throttle, 300, 0);

		assertThat(throttle.commitNow(300 + INTERVAL / 4 - 1, INTERVAL)).isFalse();
		assertThat(throttle.commitNow(300 + INTERVAL / 4, INTERVAL)).isTrue();
	}

	@Test
	void shouldForgetARequestWhoseTaskNeverCommitted() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		// the task was closed dirty before its commit: no pre-commit moment ever comes
		assertThat(this.throttle.commitNow(CommitThrottle.FORGET_AFTER_MS - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(CommitThrottle.FORGET_AFTER_MS, INTERVAL)).isTrue();
	}

	@Test
	void shouldKeepEachStreamThreadsCommitsApart() throws Exception {
		// a commit takes only its own thread's tasks along: another thread's says nothing about this one's work
		CompletableFuture.runAsync(() -> {
			assertThat(this.throttle.commitNow(1_000, INTERVAL)).isTrue();
			this.throttle.committing(1_000);
		}).get();

		assertThat(this.throttle.commitNow(1_001, INTERVAL)).isTrue();
	}

	/**
	 * A prompt commit asked for and begun at 0; the first record after it, made at {@code madeAt}, is processed at
	 * {@code processedAt}, once the commit has ended.
	 */
	private static void promptCommitEnded(CommitThrottle throttle, long processedAt, long madeAt) {
		assertThat(throttle.commitNow(0, INTERVAL)).isTrue();
		throttle.committing(0);
		throttle.processing(processedAt, madeAt, INTERVAL);
	}

}
