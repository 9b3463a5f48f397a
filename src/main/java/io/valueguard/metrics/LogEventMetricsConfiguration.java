package io.valueguard.metrics;

import ch.qos.logback.classic.LoggerContext;
import org.slf4j.LoggerFactory;

import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Counts log events by level where Logback does the logging. Spring Boot's own Logback metrics are excluded in
 * {@code ValueGuardApplication}: both would count into the same meter.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(LoggerContext.class)
class LogEventMetricsConfiguration {

	@Bean
	@Conditional(LogbackLogging.class)
	LogEventMetrics logEventMetrics() {
		return new LogEventMetrics((LoggerContext) LoggerFactory.getILoggerFactory());
	}

	static final class LogbackLogging implements Condition {

		@Override
		public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
			return LoggerFactory.getILoggerFactory() instanceof LoggerContext;
		}

	}

}
