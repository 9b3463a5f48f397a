package io.valueguard.metrics;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.valueguard.claims.ClaimRejection;
import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.KeyStage;
import io.valueguard.claims.KeyStageEvents;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.Verdict;
import io.valueguard.owners.ValueStage;
import io.valueguard.owners.ValueStageEvents;
import io.valueguard.store.Sweep;

import org.springframework.stereotype.Component;

/**
 * The pipeline's own metrics. Every counter is registered up front with each of its tag values, so that dashboards
 * and alerts see zeros rather than missing series, and the hot path only increments.
 */
@Component
public class PipelineMetrics implements KeyStageEvents, ValueStageEvents {

	private final Map<KeyStage.Outcome, Counter> keyStage = new EnumMap<>(KeyStage.Outcome.class);

	private final Map<ValueStage.Outcome, Counter> valueStage = new EnumMap<>(ValueStage.Outcome.class);

	private final Map<ClaimRejection, Counter> rejected = new EnumMap<>(ClaimRejection.class);

	private final Map<Verdict.Reason, Counter> evictions = new EnumMap<>(Verdict.Reason.class);

	private final Timer evictionLatency;

	private final Counter rerouted;

	private final Counter keyStagePassedOver;

	private final Counter valueStagePassedOver;

	private final Map<ClaimPolicy, Counter> foreignRules = new EnumMap<>(ClaimPolicy.class);

	private final StoreSweep bindingsSweep;

	private final StoreSweep ownersSweep;

	public PipelineMetrics(MeterRegistry registry) {
		for (KeyStage.Outcome outcome : KeyStage.Outcome.values()) {
			this.keyStage.put(outcome, Counter.builder("valueguard.key.stage.records")
				.description("Records applied by the key stage, by outcome")
				.tag("outcome", tag(outcome))
				.register(registry));
		}
		for (ValueStage.Outcome outcome : ValueStage.Outcome.values()) {
			this.valueStage.put(outcome, Counter.builder("valueguard.value.stage.commands")
				.description("Claims and releases arbitrated by the value stage, by outcome")
				.tag("outcome", tag(outcome))
				.register(registry));
		}
		for (ClaimRejection rejection : ClaimRejection.values()) {
			this.rejected.put(rejection, Counter.builder("valueguard.dlq.records")
				.description("Input records sent to the DLQ, by reason")
				.tag("reason", tag(rejection))
				.register(registry));
		}
		for (Verdict.Reason reason : Verdict.Reason.values()) {
			if (!reason.evicts()) {
				continue;
			}
			this.evictions.put(reason, Counter.builder("valueguard.evictions")
				.description("Claims that lost their value: superseded by a later claim, late claims that lost, "
						+ "or claims refused under first-wins")
				.tag("reason", tag(reason))
				.register(registry));
		}
		for (ClaimPolicy rule : ClaimPolicy.values()) {
			this.foreignRules.put(rule, Counter.builder("valueguard.value.stage.foreign.rule.batches")
				.description("Command batches from a key stage that runs another valueguard.policy than this "
						+ "instance's value stage, by the key stage's rule: instances run different policies")
				.tag("rule", tag(rule))
				.register(registry));
		}
		this.bindingsSweep = new StoreSweep(registry, "bindings");
		this.ownersSweep = new StoreSweep(registry, "owners");
		this.rerouted = Counter.builder("valueguard.claims.rerouted")
			.description("Claims records that arrived on another partition than their key's (a producer that does "
					+ "not partition by Kafka's default partitioner) and were sent on to their key's partition")
			.register(registry);
		this.keyStagePassedOver = passedOver(registry, "key");
		this.valueStagePassedOver = passedOver(registry, "value");
		this.evictionLatency = Timer.builder("valueguard.eviction.latency")
			.description("From the claim that decided an eviction to the eviction taking effect")
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(1))
			.maximumExpectedValue(Duration.ofMinutes(1))
			.register(registry);
	}

	@Override
	public void rejected(ClaimRejection rejection) {
		this.rejected.get(rejection).increment();
	}

	@Override
	public void keyStage(KeyStage.Outcome outcome) {
		this.keyStage.get(outcome).increment();
	}

	private static Counter passedOver(MeterRegistry registry, String stage) {
		return Counter.builder("valueguard.input.passed.over")
			.description("Input records a stage had applied before and Kafka handed it again, passed over instead of "
					+ "applied twice: the group's committed offsets went back (expired, reset, or lost by the group "
					+ "coordinator)")
			.tag("stage", stage)
			.register(registry);
	}

	@Override
	public void rerouted() {
		this.rerouted.increment();
	}

	@Override
	public void inputPassedOver() {
		this.keyStagePassedOver.increment();
	}

	@Override
	public void commandsPassedOver() {
		this.valueStagePassedOver.increment();
	}

	@Override
	public void valueStage(ValueStage.Outcome outcome) {
		this.valueStage.get(outcome).increment();
	}

	@Override
	public void evicted(EvictionEvent event, long latencyMillis) {
		this.evictions.get(event.reason()).increment();
		// a claim stamped in the future by a producer's clock must not record a negative latency
		this.evictionLatency.record(Duration.ofMillis(Math.max(0, latencyMillis)));
	}

	@Override
	public void bindingsSwept(Sweep.Slice slice) {
		this.bindingsSweep.swept(slice);
	}

	@Override
	public void foreignRule(ClaimPolicy rule) {
		this.foreignRules.get(rule).increment();
	}

	@Override
	public void ownersSwept(Sweep.Slice slice) {
		this.ownersSweep.swept(slice);
	}

	private static String tag(Enum<?> value) {
		return value.name().toLowerCase(Locale.ROOT);
	}

	/**
	 * One store's sweep (retention and erasure): what it forgot, what it read, and how long its slices held up their
	 * tasks' records, the cost a user weighs against the entries it saves; and how much of the retention its passes
	 * span, which says whether it keeps up (alert {@code ValueGuardSweepFallingBehind}).
	 */
	private static final class StoreSweep {

		private final Counter forgotten;

		private final Counter read;

		private final Timer slices;

		private final DistributionSummary span;

		StoreSweep(MeterRegistry registry, String store) {
			this.forgotten = Counter.builder("valueguard.entries.forgotten")
				.description("Entries that held nothing, forgotten by retention (valueguard.retention), by store")
				.tag("store", store)
				.register(registry);
			this.read = Counter.builder("valueguard.sweep.entries.read")
				.description("Entries read by the sweep of retention and erasure, by store")
				.tag("store", store)
				.register(registry);
			this.slices = Timer.builder("valueguard.sweep.slices")
				.description("Slices of the sweep of retention and erasure, each holding up its task's records "
						+ "while it runs, by store")
				.tag("store", store)
				.register(registry);
			// recorded at every slice, so that its recent maximum is the longest pass under way, ended or not: a
			// pass that falls behind may never end
			this.span = DistributionSummary.builder("valueguard.sweep.pass.span")
				.description("The stream time the sweep's pass has spanned at each slice, as a share of "
						+ "valueguard.retention, by store: at most a quarter while the sweep keeps up")
				.baseUnit("ratio")
				.tag("store", store)
				.register(registry);
		}

		void swept(Sweep.Slice slice) {
			this.forgotten.increment(slice.forgotten());
			this.read.increment(slice.read());
			this.slices.record(slice.nanos(), TimeUnit.NANOSECONDS);
			this.span.record(slice.span());
		}

	}

}
