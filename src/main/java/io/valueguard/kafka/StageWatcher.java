package io.valueguard.kafka;

import java.time.Duration;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.KafkaStreams;
import org.jspecify.annotations.Nullable;

import org.springframework.context.SmartLifecycle;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.core.KafkaAdmin;

/**
 * A watcher of the stages' streams clients that asks the broker about them: every interval it checks each stage on
 * a daemon thread of its own, started with the application and stopped before the clients close, with an admin
 * client that is open only while some stage's check needs the broker.
 */
abstract class StageWatcher implements SmartLifecycle {

	private static final Log logger = LogFactory.getLog(StageWatcher.class);

	final StreamsClients clients;

	private final PeriodicCheck schedule;

	private final boolean enabled;

	/** For the checks: opened when one first asks the broker, closed once no stage needs it. */
	final OnDemandAdmin admin;

	StageWatcher(String threadName, Duration interval, StreamsClients clients, KafkaAdmin kafkaAdmin,
			boolean enabled) {
		this.clients = clients;
		this.schedule = new PeriodicCheck(threadName, interval, this::checkAll);
		this.admin = new OnDemandAdmin(kafkaAdmin);
		this.enabled = enabled;
	}

	/**
	 * Checks one stage.
	 * @param streams its client; null before it is built
	 * @return whether the stage needs the broker still, so that the admin client stays open
	 */
	abstract boolean check(String applicationId, @Nullable KafkaStreams streams);

	/** Checks every stage once: what the schedule runs, and tests directly. */
	void checkAll() {
		boolean needed = false;
		for (StreamsBuilderFactoryBean factory : this.clients.all()) {
			String applicationId = StreamsClients.applicationIdOf(factory);
			try {
				needed |= check(applicationId, factory.getKafkaStreams());
			}
			catch (RuntimeException ex) {
				needed = true;
				logger.debug(getClass().getSimpleName() + " could not check " + applicationId, ex);
			}
		}
		if (!needed) {
			this.admin.close();
		}
	}

	@Override
	public void start() {
		if (this.enabled) {
			this.schedule.start();
		}
	}

	@Override
	public void stop() {
		this.schedule.stop(Duration.ofSeconds(10));
		this.admin.close();
	}

	@Override
	public boolean isRunning() {
		return this.schedule.isRunning();
	}

}
