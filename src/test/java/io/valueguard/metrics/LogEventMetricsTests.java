package io.valueguard.metrics;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** Log events counted by level as they are written, with no turbo filter in the way of level checks. */
class LogEventMetricsTests {

	private final LoggerContext context = new LoggerContext();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	private final LogEventMetrics metrics = new LogEventMetrics(this.context);

	private final Logger logger = this.context.getLogger("io.valueguard.test");

	@AfterEach
	void close() {
		this.metrics.close();
		this.context.stop();
	}

	@Test
	void shouldCountWrittenEventsByLevel() {
		this.context.getLogger(Logger.ROOT_LOGGER_NAME).setLevel(Level.INFO);
		this.metrics.bindTo(this.registry);

		this.logger.error("one");
		this.logger.warn("two");
		this.logger.warn("three");
		this.logger.info("four");
		this.logger.debug("below the level: not written, not counted");
		this.logger.trace("nor this");

		assertThat(count("error")).isEqualTo(1);
		assertThat(count("warn")).isEqualTo(2);
		assertThat(count("info")).isEqualTo(1);
		assertThat(count("debug")).isZero();
		assertThat(count("trace")).isZero();
	}

	@Test
	void shouldLeaveLevelChecksWithoutTurboFilters() {
		this.metrics.bindTo(this.registry);

		assertThat(this.context.getTurboFilterList()).isEmpty();
	}

	@Test
	void shouldKeepCountingAfterTheLoggingContextIsReset() {
		this.metrics.bindTo(this.registry);
		this.logger.warn("before");

		// what Spring Boot does when it configures logging again
		this.context.reset();
		this.logger.warn("after");

		assertThat(count("warn")).isEqualTo(2);
	}

	@Test
	void shouldStopCountingWhenClosed() {
		this.metrics.bindTo(this.registry);
		this.logger.error("counted");

		this.metrics.close();
		this.logger.error("not counted");

		assertThat(count("error")).isEqualTo(1);
		assertThat(this.context.getLogger(Logger.ROOT_LOGGER_NAME).iteratorForAppenders().hasNext()).isFalse();
	}

	private double count(String level) {
		return this.registry.get(LogEventMetrics.METER).tag("level", level).counter().count();
	}

}
