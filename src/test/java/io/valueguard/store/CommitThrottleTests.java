package io.valueguard.store;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommitThrottleTests {

	private static final long INTERVAL = 100;

	private final CommitThrottle throttle = new CommitThrottle(null);

	@Test
	void shouldAskOnceWhileACommitIsUnderWay() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		assertThat(this.throttle.commitNow(1, INTERVAL)).isFalse();
		// records of the same round, before the commit began
		this.throttle.processing(2, 0, INTERVAL);
		assertThat(this.throttle.commitNow(500, INTERVAL)).isFalse();
	}

	@Test
	void shouldAskAtMostOncePerInterval() {
		promptCommitEnded(this.throttle, 10, 5);
		assertThat(this.throttle.commitNow(99, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(100, INTERVAL)).isTrue();
	}

	@Test
	void shouldLeaveTimeToProcessAfterACommitSlowerThanTheInterval() {
		// the commit took a second, and the input waited through it: counting from the request alone would commit
		// again at once, one record per commit
		promptCommitEnded(this.throttle, 1_000, 400);
		assertThat(this.throttle.commitNow(1_000, INTERVAL)).isFalse();
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
		// the first record after the commit waited a quarter interval in its topic: the stage has input waiting
		promptCommitEnded(this.throttle, 150, 150 - INTERVAL / 4);

		assertThat(this.throttle.commitNow(150, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(150 + INTERVAL / 4, INTERVAL)).isTrue();
	}

	@Test
	void shouldStillAskAtMostOncePerIntervalWhenTheStageKeepsUp() {
		promptCommitEnded(this.throttle, 40, 38);

		assertThat(this.throttle.commitNow(40, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(INTERVAL, INTERVAL)).isTrue();
	}

	@Test
	void shouldAskAgainAfterTheShorterPromptIntervalWhenOneIsSet() {
		CommitThrottle throttle = new CommitThrottle(Duration.ofMillis(20));
		promptCommitEnded(throttle, 15, 13);

		assertThat(throttle.commitNow(19, INTERVAL)).isFalse();
		assertThat(throttle.commitNow(20, INTERVAL)).isTrue();
	}

	@Test
	void shouldKeepTheQuarterOfTheCommitIntervalWithAShorterPromptInterval() {
		CommitThrottle throttle = new CommitThrottle(Duration.ofMillis(20));
		// behind its input: the guard against one record per transaction counts in commit intervals, not prompt ones
		promptCommitEnded(throttle, 300, 200);

		assertThat(throttle.commitNow(300 + INTERVAL / 4 - 1, INTERVAL)).isFalse();
		assertThat(throttle.commitNow(300 + INTERVAL / 4, INTERVAL)).isTrue();
	}

	@Test
	void shouldIgnoreCommitsNobodyAskedFor() {
		// a scheduled commit, with no prompt commit under way
		this.throttle.committing();
		this.throttle.processing(10, 0, INTERVAL);
		assertThat(this.throttle.commitNow(11, INTERVAL)).isTrue();
	}

	@Test
	void shouldForgetARequestWhoseTaskNeverCommitted() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		// the task was closed dirty before its commit: no pre-commit moment ever comes
		assertThat(this.throttle.commitNow(CommitThrottle.FORGET_AFTER_MS - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(CommitThrottle.FORGET_AFTER_MS, INTERVAL)).isTrue();
	}

	/**
	 * A prompt commit asked for at 0 and begun; the first record after it, made at {@code madeAt}, is processed at
	 * {@code processedAt}, once the commit has ended.
	 */
	private static void promptCommitEnded(CommitThrottle throttle, long processedAt, long madeAt) {
		assertThat(throttle.commitNow(0, INTERVAL)).isTrue();
		throttle.committing();
		throttle.processing(processedAt, madeAt, INTERVAL);
	}

}
