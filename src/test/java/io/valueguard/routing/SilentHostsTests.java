package io.valueguard.routing;

import java.util.List;

import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which instances a stale read asks last: those that lately gave no answer at all, until they answer again or the
 * suspicion is old.
 */
class SilentHostsTests {

	private static final HostInfo A = new HostInfo("a", 8080);

	private static final HostInfo B = new HostInfo("b", 8080);

	private static final HostInfo C = new HostInfo("c", 8080);

	private final SilentHosts silent = new SilentHosts();

	@Test
	void shouldKeepTheOrderWhileEveryHostAnswers() {
		assertThat(this.silent.lastIfSilent(List.of(A, B, C), 0)).containsExactly(A, B, C);
	}

	@Test
	void shouldMoveSilentHostsToTheEndInTheirOrder() {
		this.silent.silent(A, 0);
		this.silent.silent(B, 0);

		assertThat(this.silent.lastIfSilent(List.of(A, B, C), 1)).containsExactly(C, A, B);
	}

	@Test
	void shouldForgetAHostOnceItAnswers() {
		this.silent.silent(A, 0);
		this.silent.answered(A);

		assertThat(this.silent.isSilent(A, 1)).isFalse();
		assertThat(this.silent.lastIfSilent(List.of(A, B), 1)).containsExactly(A, B);
	}

	@Test
	void shouldForgetAnOldSilence() {
		this.silent.silent(A, 0);

		assertThat(this.silent.isSilent(A, SilentHosts.FORGET_AFTER_NANOS - 1)).isTrue();
		assertThat(this.silent.isSilent(A, SilentHosts.FORGET_AFTER_NANOS)).isFalse();
	}

	@Test
	void shouldCountAFreshSilenceFromItsOwnTime() {
		this.silent.silent(A, 0);
		this.silent.silent(A, SilentHosts.FORGET_AFTER_NANOS / 2);

		assertThat(this.silent.isSilent(A, SilentHosts.FORGET_AFTER_NANOS)).isTrue();
	}

}
