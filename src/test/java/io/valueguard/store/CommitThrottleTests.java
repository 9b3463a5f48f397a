package io.valueguard.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommitThrottleTests {

	private static final long INTERVAL = 100;

	private final CommitThrottle throttle = new CommitThrottle();

	@Test
	void shouldAskOnceWhileACommitIsUnderWay() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		assertThat(this.throttle.commitNow(1, INTERVAL)).isFalse();
		// records of the same round, before the commit began
		this.throttle.processing(2);
		assertThat(this.throttle.commitNow(500, INTERVAL)).isFalse();
	}

	@Test
	void shouldAskAtMostOncePerInterval() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		this.throttle.committing();
		this.throttle.processing(10);
		assertThat(this.throttle.commitNow(99, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(100, INTERVAL)).isTrue();
	}

	@Test
	void shouldLeaveTimeToProcessAfterACommitSlowerThanTheInterval() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		this.throttle.committing();
		// the commit took a second: counting from the request alone would commit again at once, one record per commit
		this.throttle.processing(1_000);
		assertThat(this.throttle.commitNow(1_000, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(1_000 + INTERVAL / 4 - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(1_000 + INTERVAL / 4, INTERVAL)).isTrue();
	}

	@Test
	void shouldIgnoreCommitsNobodyAskedFor() {
		// a scheduled commit, with no prompt commit under way
		this.throttle.committing();
		this.throttle.processing(10);
		assertThat(this.throttle.commitNow(11, INTERVAL)).isTrue();
	}

	@Test
	void shouldForgetARequestWhoseTaskNeverCommitted() {
		assertThat(this.throttle.commitNow(0, INTERVAL)).isTrue();
		// the task was closed dirty before its commit: no pre-commit moment ever comes
		assertThat(this.throttle.commitNow(CommitThrottle.FORGET_AFTER_MS - 1, INTERVAL)).isFalse();
		assertThat(this.throttle.commitNow(CommitThrottle.FORGET_AFTER_MS, INTERVAL)).isTrue();
	}

}
