package io.valueguard.metrics;

import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.valueguard.kafka.StoreLags;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * {@code valueguard_store_offset_lag{store,partition,role}}: how far each local store partition is behind the end of
 * its changelog, from the lag snapshot that {@link StoreLags} refreshes on a schedule (never per scrape). Partitions
 * that move away disappear from the series.
 */
@Component
class StoreLagMetrics {

	private final StoreLags lags;

	private final MultiGauge gauge;

	StoreLagMetrics(StoreLags lags, MeterRegistry registry) {
		this.lags = lags;
		this.gauge = MultiGauge.builder("valueguard.store.offset.lag")
			.description("Records the local store partition is behind the end of its changelog")
			.register(registry);
	}

	@Scheduled(fixedDelayString = "${valueguard.query.lag-refresh-interval:1s}",
			initialDelayString = "${valueguard.query.lag-refresh-interval:1s}")
	void publish() {
		List<MultiGauge.Row<?>> rows = this.lags.all()
			.stream()
			.map((lag) -> MultiGauge.Row.of(Tags.of("store", lag.store(), "partition",
					Integer.toString(lag.partition()), "role", lag.active() ? "active" : "standby"), lag.offsetLag()))
			.<MultiGauge.Row<?>>map((row) -> row)
			.toList();
		this.gauge.register(rows, true);
	}

}
