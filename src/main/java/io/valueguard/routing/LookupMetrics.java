package io.valueguard.routing;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

import org.springframework.stereotype.Component;

/**
 * {@code valueguard_lookup_latency_seconds{store,route,outcome}}: how long lookups take, answered from a local store
 * ({@code local}), from another instance ({@code forwarded}), or not at all ({@code unavailable}), with percentile
 * histograms.
 */
@Component
class LookupMetrics {

	private final MeterRegistry registry;

	private final Map<String, Timer> timers = new ConcurrentHashMap<>();

	LookupMetrics(MeterRegistry registry) {
		this.registry = registry;
		for (String store : java.util.List.of("bindings", "owners")) {
			for (String route : java.util.List.of("local", "forwarded")) {
				timer(store, route, "found");
				timer(store, route, "not_found");
			}
			timer(store, "none", "unavailable");
		}
	}

	void record(String store, String route, String outcome, long nanos) {
		timer(store, route, outcome).record(nanos, TimeUnit.NANOSECONDS);
	}

	private Timer timer(String store, String route, String outcome) {
		return this.timers.computeIfAbsent(store + '/' + route + '/' + outcome,
				(key) -> Timer.builder("valueguard.lookup.latency")
					.description("Lookups by key or value, from the request to the answer")
					.tags("store", store, "route", route, "outcome", outcome)
					.publishPercentileHistogram()
							.minimumExpectedValue(Duration.ofMillis(1))
					.maximumExpectedValue(Duration.ofSeconds(10))
					.register(this.registry));
	}

}
