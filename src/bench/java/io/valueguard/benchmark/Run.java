package io.valueguard.benchmark;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.valueguard.support.GcLog;

/**
 * One application's run over a workload's {@code claims}: wall time, CPU seconds of the application's and the
 * broker's JVM meanwhile, the offsets written to each topic of the application (those starting with {@code prefix}),
 * how many commits its stream threads made (-1: not known), where its threads' CPU went and the broker's, the time of
 * the last three quarters of the claims (from when the group that reads the claims has committed a quarter of them),
 * the time from when that group has committed them all to the end (-1: not known), its largest resident set
 * meanwhile (MiB), its output read as a table (empty when not read), the requests the broker served meanwhile, by
 * kind (empty when not counted), and its GC log from start-up until it had caught up (of the first instance, when
 * several ran).
 */
record Run(String prefix, long claims, long millis, double applicationCpu, double brokerCpu,
		Map<String, Long> offsetsByTopic, long commits, List<CatchUp.ThreadLoad> threadLoads,
		List<CatchUp.ThreadLoad> brokerThreadLoads,
		long lastThreeQuartersMillis, long drainMillis, long peakResidentMib, Table table,
		Map<String, BrokerRequests.Served> brokerRequests, GcLog gc) {

	long offsetsWritten() {
		return this.offsetsByTopic.values().stream().mapToLong(Long::longValue).sum();
	}

	/** Offsets written per claim to each topic, the application's prefix left out. */
	String writesByTopic() {
		StringBuilder writes = new StringBuilder();
		this.offsetsByTopic.forEach((topic, offsets) -> writes.append(String.format(Locale.ROOT, "%s %.2f; ",
				topic.substring(this.prefix.length()), (double) offsets / this.claims)));
		return writes.toString();
	}

	double claimsPerSecond() {
		return this.claims / (this.millis / 1000.0);
	}

	/** Claims/s over the last three quarters of the claims, NaN when not known (at-least-once). */
	double lastThreeQuartersPerSecond() {
		return (this.lastThreeQuartersMillis > 0) ? this.claims * 0.75 / (this.lastThreeQuartersMillis / 1000.0)
				: Double.NaN;
	}

	/** CPU milliseconds per 1,000 claims, application and broker. */
	String cpu() {
		return String.format(Locale.ROOT, "%.1f + %.1f", this.applicationCpu * 1_000_000 / this.claims,
				this.brokerCpu * 1_000_000 / this.claims);
	}

	/** Claims per commit of each stream thread, on average. */
	String claimsPerCommit(int threads) {
		return (this.commits > 0) ? String.format(Locale.ROOT, "%,.0f", (double) this.claims * threads / this.commits)
				: "unknown";
	}

	/** How much of the run the application's busiest kind of thread ran on a core. */
	String busiestThreadShare() {
		return this.threadLoads.isEmpty() ? "?" : String.format(Locale.ROOT, "%.2f", this.threadLoads.get(0).share());
	}

	/** The kinds of thread that spent the most CPU, with their shares of the run. */
	String busiestThreads() {
		return busiest(this.threadLoads);
	}

	/** The broker's kinds of thread that spent the most CPU meanwhile: a broker still compiling shows its JIT here. */
	String brokerBusiestThreads() {
		return busiest(this.brokerThreadLoads);
	}

	private static String busiest(List<CatchUp.ThreadLoad> loads) {
		return loads.stream().limit(6).map(CatchUp.ThreadLoad::toString).collect(Collectors.joining(", "));
	}

	/** The kinds of request that took the broker the most handling time, per 1,000 claims. */
	String brokerRequestsPerThousandClaims() {
		return BrokerRequests.perThousandClaims(this.brokerRequests, this.claims);
	}

	String writes() {
		return String.format(Locale.ROOT, "%.1f", (double) offsetsWritten() / this.claims);
	}

}
