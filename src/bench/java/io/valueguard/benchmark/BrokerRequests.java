package io.valueguard.benchmark;

import java.io.IOException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

import com.sun.tools.attach.VirtualMachine;

/**
 * The requests a broker in a JVM of its own has served, by kind, read from its request metrics over JMX (the JVM's
 * local management agent, started through the attach API, so that the broker needs no JMX port). What a run cost the
 * broker is the difference of two snapshots: how many requests of each kind, and the time they spent being handled
 * ({@code LocalTimeMs}, which excludes the queues and a fetch's wait for data).
 */
final class BrokerRequests implements AutoCloseable {

	private static final String LOCAL_TIME = "kafka.network:type=RequestMetrics,name=LocalTimeMs,request=*";

	private final JMXConnector connector;

	private final MBeanServerConnection server;

	private BrokerRequests(JMXConnector connector) throws IOException {
		this.connector = connector;
		this.server = connector.getMBeanServerConnection();
	}

	static BrokerRequests attach(long pid) throws Exception {
		VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
		try {
			return new BrokerRequests(JMXConnectorFactory.connect(new JMXServiceURL(vm.startLocalManagementAgent())));
		}
		finally {
			vm.detach();
		}
	}

	/** Requests served so far, by kind of request. */
	Map<String, Served> snapshot() throws Exception {
		Map<String, Served> served = new HashMap<>();
		for (ObjectName name : this.server.queryNames(new ObjectName(LOCAL_TIME), null)) {
			long count = ((Number) this.server.getAttribute(name, "Count")).longValue();
			double mean = ((Number) this.server.getAttribute(name, "Mean")).doubleValue();
			served.merge(name.getKeyProperty("request"), new Served(count, count * mean), Served::plus);
		}
		return served;
	}

	@Override
	public void close() throws IOException {
		this.connector.close();
	}

	/** How many requests of one kind, and the milliseconds they spent being handled. */
	record Served(long requests, double localMillis) {

		Served plus(Served other) {
			return new Served(this.requests + other.requests, this.localMillis + other.localMillis);
		}

		Served minus(Served other) {
			return new Served(this.requests - other.requests, this.localMillis - other.localMillis);
		}

	}

	/** What was served between two snapshots, by kind; kinds with no request left out. */
	static Map<String, Served> between(Map<String, Served> before, Map<String, Served> after) {
		Map<String, Served> spent = new HashMap<>();
		after.forEach((kind, served) -> {
			Served difference = served.minus(before.getOrDefault(kind, new Served(0, 0)));
			if (difference.requests() > 0) {
				spent.put(kind, difference);
			}
		});
		return spent;
	}

	/**
	 * The kinds that took the most handling time, each as requests per 1,000 claims and handling milliseconds per
	 * 1,000 claims.
	 */
	static String perThousandClaims(Map<String, Served> spent, long claims) {
		if (spent.isEmpty()) {
			return "not read";
		}
		return spent.entrySet()
			.stream()
			.sorted(Comparator.comparingDouble((Map.Entry<String, Served> entry) -> entry.getValue().localMillis())
				.reversed())
			.limit(8)
			.map((entry) -> String.format(Locale.ROOT, "%s %.1f (%.1f ms)", entry.getKey(),
					entry.getValue().requests() * 1000.0 / claims, entry.getValue().localMillis() * 1000.0 / claims))
			.collect(Collectors.joining(", "));
	}

}
