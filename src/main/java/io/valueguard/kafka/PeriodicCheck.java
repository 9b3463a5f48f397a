package io.valueguard.kafka;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * A check run on a daemon thread of its own at a fixed delay, for the watchers of the streams clients: started with
 * the application, stopped (and waited for) before the clients close.
 */
final class PeriodicCheck {

	private final String threadName;

	private final Duration interval;

	private final Runnable check;

	private volatile @Nullable ScheduledExecutorService executor;

	PeriodicCheck(String threadName, Duration interval, Runnable check) {
		this.threadName = threadName;
		this.interval = interval;
		this.check = check;
	}

	void start() {
		ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
			Thread thread = new Thread(task, this.threadName);
			thread.setDaemon(true);
			return thread;
		});
		scheduler.scheduleWithFixedDelay(this.check, this.interval.toMillis(), this.interval.toMillis(),
				TimeUnit.MILLISECONDS);
		this.executor = scheduler;
	}

	/** Stops the thread, waiting up to {@code timeout} for a check under way to end. */
	void stop(Duration timeout) {
		ScheduledExecutorService scheduler = this.executor;
		this.executor = null;
		if (scheduler != null) {
			scheduler.shutdownNow();
			try {
				scheduler.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	boolean isRunning() {
		return this.executor != null;
	}

}
