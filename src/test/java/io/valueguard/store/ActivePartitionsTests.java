package io.valueguard.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ActivePartitionsTests {

	private final ActivePartitions active = new ActivePartitions();

	@Test
	void shouldKnowAPartitionFromItsTasksStartUntilItStops() {
		Object task = new Object();
		assertThat(this.active.processing("bindings", 2)).isFalse();

		this.active.started("bindings", 2, task);

		assertThat(this.active.processing("bindings", 2)).isTrue();
		assertThat(this.active.processing("bindings", 3)).isFalse();
		assertThat(this.active.processing("owners", 2)).isFalse();
		assertThat(this.active.partitions("bindings")).containsExactly(2);
		assertThat(this.active.partitions("owners")).isEmpty();
		this.active.stopped("bindings", 2, task);
		assertThat(this.active.processing("bindings", 2)).isFalse();
		assertThat(this.active.partitions("bindings")).isEmpty();
	}

	@Test
	void shouldLetOnlyTheTaskThatProcessesNowStopThePartition() {
		Object closedLate = new Object();
		Object current = new Object();
		this.active.started("owners", 0, closedLate);
		this.active.started("owners", 0, current);

		// the task it replaced closes after the new one started (a client restarted in place)
		this.active.stopped("owners", 0, closedLate);

		assertThat(this.active.processing("owners", 0)).isTrue();
		this.active.stopped("owners", 0, current);
		assertThat(this.active.processing("owners", 0)).isFalse();
	}

}
