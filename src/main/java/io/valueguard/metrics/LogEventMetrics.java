package io.valueguard.metrics;

import java.util.Map;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.LoggerContextListener;
import ch.qos.logback.core.UnsynchronizedAppenderBase;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Log events by level, as {@code logback.events} with a {@code level} tag: the meter Spring Boot's Logback metrics
 * register, counted by an appender on the root logger instead of their turbo filter. Logback asks every turbo filter
 * on every level check, logged or not, and Kafka's clients check for TRACE several times per record, so that filter
 * shows in the pipeline's profile. An appender runs only for events that are written. It sees the
 * events that reach the root logger, which with Spring Boot's logging configuration is every event written.
 */
final class LogEventMetrics implements MeterBinder, AutoCloseable {

	static final String METER = "logback.events";

	private final LoggerContext context;

	private final CountingAppender appender = new CountingAppender();

	private final LoggerContextListener reattach = new ReattachOnReset();

	LogEventMetrics(LoggerContext context) {
		this.context = context;
	}

	@Override
	public void bindTo(MeterRegistry registry) {
		this.appender.counters = Map.of(Level.ERROR_INT, counter(registry, "error"), Level.WARN_INT,
				counter(registry, "warn"), Level.INFO_INT, counter(registry, "info"), Level.DEBUG_INT,
				counter(registry, "debug"), Level.TRACE_INT, counter(registry, "trace"));
		attach();
		this.context.addListener(this.reattach);
	}

	private static Counter counter(MeterRegistry registry, String level) {
		return Counter.builder(METER)
			.tag("level", level)
			.description("Number of log events that were enabled by the effective log level")
			.baseUnit("events")
			.register(registry);
	}

	private void attach() {
		Logger root = this.context.getLogger(Logger.ROOT_LOGGER_NAME);
		if (!root.isAttached(this.appender)) {
			this.appender.setContext(this.context);
			this.appender.setName("valueguard-log-event-metrics");
			this.appender.start();
			root.addAppender(this.appender);
		}
	}

	@Override
	public void close() {
		this.context.removeListener(this.reattach);
		this.context.getLogger(Logger.ROOT_LOGGER_NAME).detachAppender(this.appender);
		this.appender.stop();
	}

	private static final class CountingAppender extends UnsynchronizedAppenderBase<ILoggingEvent> {

		private volatile Map<Integer, Counter> counters = Map.of();

		@Override
		protected void append(ILoggingEvent event) {
			Counter counter = this.counters.get(event.getLevel().toInt());
			if (counter != null) {
				counter.increment();
			}
		}

	}

	/** Spring Boot resets the logging context when it configures logging again; the appender goes with it. */
	private final class ReattachOnReset implements LoggerContextListener {

		@Override
		public boolean isResetResistant() {
			return true;
		}

		@Override
		public void onReset(LoggerContext context) {
			attach();
		}

		@Override
		public void onStart(LoggerContext context) {
		}

		@Override
		public void onStop(LoggerContext context) {
		}

		@Override
		public void onLevelChange(Logger logger, Level level) {
		}

	}

}
