package io.valueguard.metrics;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.valueguard.config.ClaimPolicy;
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

	private double count(String rule) {
		return this.registry.get("valueguard.value.stage.foreign.rule.batches").tag("rule", rule).counter().count();
	}

}
