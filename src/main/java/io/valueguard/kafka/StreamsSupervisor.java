package io.valueguard.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.KafkaStreams;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationListener;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.stereotype.Component;

/**
 * Keeps both streams clients alive without a process restart. Four times a second it looks at each client: a client in
 * ERROR is restarted (a new {@link KafkaStreams} on the same topology and state directory) after
 * {@code valueguard.streams.restart-backoff}, doubled after each restart that fails, up to
 * {@code max-restart-backoff}. A restart has failed when the client reaches ERROR again before RUNNING. A client shut
 * down because a thread was fenced from its group is restarted at once, unless it was fenced within the last
 * {@link #FENCES_APART} too: the restart itself is the cure (its threads rejoin under their own static ids), and
 * waiting only keeps its partitions unprocessed; fences that repeat, as when two live instances share one name, wait
 * their backoff like any failure. After
 * {@code max-restarts} failed restarts in a row the client counts as given up, so liveness goes DOWN and the platform
 * may restart the process; the supervisor still keeps trying, so an instance run by hand comes back by itself.
 */
@Component
public class StreamsSupervisor implements SmartLifecycle, ApplicationListener<ContextClosedEvent> {

	private static final Log logger = LogFactory.getLog(StreamsSupervisor.class);

	/** How often each client is looked at: a client in ERROR processes nothing until it is seen. */
	static final Duration CHECK_INTERVAL = Duration.ofMillis(250);

	/** How long after restarting a fenced client another fence of it waits its backoff. */
	static final Duration FENCES_APART = Duration.ofMinutes(1);

	/** What the supervisor knows of one client; touched by its own thread only, read by health checks. */
	private static final class Watch {

		volatile KafkaStreams.@Nullable State state;

		volatile int failedRestarts;

		volatile long restartAtNanos;

		volatile long restarts;

		/** When the client was last restarted at once after a fence; 0: never. */
		volatile long fenceRestartNanos;

	}

	private final StreamsClients clients;

	private final StreamThreadFailures failures;

	private final ValueGuardProperties.Streams settings;

	private final Map<String, Watch> watches = new ConcurrentHashMap<>();

	private final PeriodicCheck schedule;

	@Autowired
	public StreamsSupervisor(StreamsClients clients, StreamThreadFailures failures, ValueGuardProperties properties) {
		this(clients, failures, properties, CHECK_INTERVAL);
	}

	/** With the clients looked at every {@code checkInterval}: tests drive the checks themselves. */
	StreamsSupervisor(StreamsClients clients, StreamThreadFailures failures, ValueGuardProperties properties,
			Duration checkInterval) {
		this.clients = clients;
		this.failures = failures;
		this.settings = properties.streams();
		this.schedule = new PeriodicCheck("valueguard-streams-supervisor", checkInterval, this::checkAll);
	}

	/**
	 * True when a client has failed {@code max-restarts} restarts in a row, or Kafka refused it an operation: only a
	 * process restart (after the fix) is left.
	 */
	public boolean gaveUp(String applicationId) {
		Watch watch = this.watches.get(applicationId);
		return (watch != null && watch.failedRestarts > this.settings.maxRestarts())
				|| this.failures.refusal(applicationId) != null;
	}

	/** How often the supervisor has restarted the client since the process started. */
	public long restarts(String applicationId) {
		Watch watch = this.watches.get(applicationId);
		return (watch != null) ? watch.restarts : 0;
	}

	@Override
	public void start() {
		this.schedule.start();
	}

	/** Stops before the streams clients do, so that no restart races the shutdown. */
	@Override
	public void stop() {
		this.schedule.stop(this.settings.closeTimeout());
	}

	@Override
	public void onApplicationEvent(ContextClosedEvent event) {
		stop();
	}

	@Override
	public boolean isRunning() {
		return this.schedule.isRunning();
	}

	@Override
	public int getPhase() {
		return Integer.MAX_VALUE;
	}

	void checkAll() {
		for (StreamsBuilderFactoryBean factory : this.clients.all()) {
			try {
				check(factory);
			}
			catch (RuntimeException ex) {
				logger.warn("Could not check a Kafka Streams client: " + StreamThreadFailures.describe(ex));
			}
		}
	}

	private void check(StreamsBuilderFactoryBean factory) {
		String applicationId = StreamsClients.applicationIdOf(factory);
		Watch watch = this.watches.computeIfAbsent(applicationId, (id) -> new Watch());
		KafkaStreams streams = factory.getKafkaStreams();
		KafkaStreams.State state = (streams != null) ? streams.state() : null;
		KafkaStreams.State previous = watch.state;
		watch.state = state;
		if (state == KafkaStreams.State.RUNNING && watch.failedRestarts > 0) {
			logger.info("Kafka Streams client " + applicationId + " is RUNNING again after " + watch.failedRestarts
					+ " restart(s)");
			watch.failedRestarts = 0;
		}
		if (state != KafkaStreams.State.ERROR || !factory.isRunning() || !this.schedule.isRunning()) {
			watch.restartAtNanos = 0;
			return;
		}
		if (this.failures.refusal(applicationId) != null) {
			// a missing ACL: restarting cannot help, and retrying would hide the error in a loop
			return;
		}
		long now = System.nanoTime();
		if (previous != KafkaStreams.State.ERROR && watch.failedRestarts == 0 && this.failures.fenced(applicationId)
				&& (watch.fenceRestartNanos == 0 || now - watch.fenceRestartNanos > FENCES_APART.toNanos())) {
			// the restart is the cure: its threads rejoin under their own static ids (its WARN names the fence)
			watch.fenceRestartNanos = now;
			restart(factory, applicationId, watch);
			return;
		}
		if (previous != KafkaStreams.State.ERROR || watch.restartAtNanos == 0) {
			Duration backoff = backoff(watch.failedRestarts);
			watch.restartAtNanos = now + backoff.toNanos();
			logger.warn("Kafka Streams client " + applicationId + " failed (ERROR); restarting it in " + backoff
					+ ". Cause: " + cause(applicationId));
			return;
		}
		if (now - watch.restartAtNanos >= 0) {
			restart(factory, applicationId, watch);
		}
	}

	/**
	 * Restarts the client of {@code applicationId} now, as the supervisor does after a failure: the running client is
	 * closed (its open transactions abort) and a new one starts on the same topology and state directory.
	 */
	public void restartNow(String applicationId) {
		for (StreamsBuilderFactoryBean factory : this.clients.all()) {
			if (applicationId.equals(StreamsClients.applicationIdOf(factory))) {
				logger.warn("Restarting Kafka Streams client " + applicationId + " on request");
				replace(factory, this.watches.computeIfAbsent(applicationId, (id) -> new Watch()));
				return;
			}
		}
		throw new IllegalArgumentException("No Kafka Streams client " + applicationId);
	}

	private void restart(StreamsBuilderFactoryBean factory, String applicationId, Watch watch) {
		watch.failedRestarts++;
		watch.restartAtNanos = 0;
		if (watch.failedRestarts > this.settings.maxRestarts()) {
			logger.error("Kafka Streams client " + applicationId + " failed after " + this.settings.maxRestarts()
					+ " restart(s) in a row; liveness is DOWN. Still restarting it, attempt " + watch.failedRestarts
					+ ". Cause: " + cause(applicationId));
		}
		else {
			logger.warn("Restarting Kafka Streams client " + applicationId + ", attempt " + watch.failedRestarts
					+ " of " + this.settings.maxRestarts() + ". Cause: " + cause(applicationId));
		}
		replace(factory, watch);
	}

	/** Closes the client (its open transactions abort) and starts a new one on the same topology and state. */
	private static void replace(StreamsBuilderFactoryBean factory, Watch watch) {
		watch.restarts++;
		factory.stop();
		factory.start();
		// the new client starts in CREATED: the next ERROR, if any, is a new failure with a longer backoff
		watch.state = null;
	}

	private Duration backoff(int failedRestarts) {
		Duration backoff = this.settings.restartBackoff();
		for (int i = 0; i < failedRestarts && backoff.compareTo(this.settings.maxRestartBackoff()) < 0; i++) {
			backoff = backoff.multipliedBy(2);
		}
		return (backoff.compareTo(this.settings.maxRestartBackoff()) > 0) ? this.settings.maxRestartBackoff()
				: backoff;
	}

	private String cause(String applicationId) {
		String cause = this.failures.lastCause(applicationId);
		return (cause != null) ? cause : "unknown (see the Kafka Streams log above)";
	}

	/** What Kafka said when it refused the client an operation, or null. */
	@Nullable String refusal(String applicationId) {
		return this.failures.refusal(applicationId);
	}

	List<String> givenUp() {
		Set<String> clients = new TreeSet<>(this.watches.keySet());
		clients.addAll(this.failures.refused());
		return clients.stream().filter(this::gaveUp).toList();
	}

}
