package io.valueguard.routing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.streams.state.HostInfo;

/**
 * Instances that lately gave no answer at all: the connection was refused or reset, or the read timed out. A frozen
 * instance (a long pause, a stalled node) keeps its partitions until its session times out, and every lookup
 * forwarded to it waits the whole read timeout; a lookup that may read a standby ({@code maxLag}) asks such an
 * instance last, so that it is answered at once. Strict lookups still ask the active alone: only it may answer them.
 * An instance stays silent until it answers again or {@link #FORGET_AFTER_NANOS} has passed, whichever comes first.
 */
final class SilentHosts {

	/** Longer than Kafka's default session timeout (45 s): how long a frozen instance keeps its partitions. */
	static final long FORGET_AFTER_NANOS = 60_000_000_000L;

	private final Map<HostInfo, Long> silentSince = new ConcurrentHashMap<>();

	void silent(HostInfo host, long nowNanos) {
		this.silentSince.put(host, nowNanos);
	}

	void answered(HostInfo host) {
		// a lookup path: a read of an empty map is cheaper than a remove
		if (!this.silentSince.isEmpty()) {
			this.silentSince.remove(host);
		}
	}

	boolean isSilent(HostInfo host, long nowNanos) {
		Long since = this.silentSince.get(host);
		if (since == null) {
			return false;
		}
		if (nowNanos - since >= FORGET_AFTER_NANOS) {
			this.silentSince.remove(host, since);
			return false;
		}
		return true;
	}

	/** The hosts in the same order, but those that were silent lately at the end. */
	List<HostInfo> lastIfSilent(List<HostInfo> hosts, long nowNanos) {
		if (this.silentSince.isEmpty()) {
			return hosts;
		}
		List<HostInfo> ordered = new ArrayList<>(hosts.size());
		List<HostInfo> silent = new ArrayList<>();
		for (HostInfo host : hosts) {
			(isSilent(host, nowNanos) ? silent : ordered).add(host);
		}
		ordered.addAll(silent);
		return ordered;
	}

}
