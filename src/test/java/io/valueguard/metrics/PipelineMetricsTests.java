package io.valueguard.metrics;

import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.store.Sweep;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PipelineMetricsTests {

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final PipelineMetrics metrics = new PipelineMetrics(this.registry);

	@Test
	void shouldCountBatchesOfKeyStagesThatRunAnotherPolicyByTheirRule() {
		this.metrics.foreignRule(ClaimPolicy.FIRST_WINS);
		this.metrics.foreignRule(ClaimPolicy.FIRST_WINS);

		assertThat(count("first_wins")).isEqualTo(2);
		// registered before any batch, so that the alert's series exists while all is well
		assertThat(count("latest_wins")).isZero();
	}

	@Test
	void shouldCountClaimsReroutedToTheirKeysPartitionFromZero() {
		// registered before any claim, so that the dashboard's series exists while every producer partitions by murmur2
		assertThat(this.registry.get("valueguard.claims.rerouted").counter().count()).isZero();

		this.metrics.rerouted();
		this.metrics.rerouted();

		assertThat(this.registry.get("valueguard.claims.rerouted").counter().count()).isEqualTo(2);
	}

	@Test
	void shouldCountWhatEachStoresSweepReadAndForgotAndTimeItsSlices() {
		this.metrics.ownersSwept(new Sweep.Slice(10_000, 120, 3_000_000, 0.25));
		this.metrics.ownersSwept(new Sweep.Slice(20_000, 0, 9_000_000, 0.05));
		this.metrics.bindingsSwept(new Sweep.Slice(10_000, 7, 2_000_000, 0.125));

		assertThat(sweep("valueguard.sweep.entries.read", "owners")).isEqualTo(30_000);
		assertThat(sweep("valueguard.entries.forgotten", "owners")).isEqualTo(120);
		assertThat(sweep("valueguard.entries.forgotten", "bindings")).isEqualTo(7);
		Timer owners = this.registry.get("valueguard.sweep.slices").tag("store", "owners").timer();
		assertThat(owners.count()).isEqualTo(2);
		assertThat(owners.max(TimeUnit.MILLISECONDS)).isEqualTo(9);
		assertThat(owners.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(12);
		// the longest pass of late, ended or not
		assertThat(this.registry.get("valueguard.sweep.pass.span").tag("store", "owners").summary().max())
			.isEqualTo(0.25);
		assertThat(this.registry.get("valueguard.sweep.pass.span").tag("store", "bindings").summary().max())
			.isEqualTo(0.125);
	}

	private double sweep(String counter, String store) {
		return this.registry.get(counter).tag("store", store).counter().count();
	}

	private double count(String rule) {
		return this.registry.get("valueguard.value.stage.foreign.rule.batches").tag("rule", rule).counter().count();
	}

}
