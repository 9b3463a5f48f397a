package io.valueguard;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.boot.micrometer.metrics.autoconfigure.logging.logback.LogbackMetricsAutoConfiguration;
import org.springframework.scheduling.annotation.EnableScheduling;

// log events are counted by metrics/LogEventMetrics, without the turbo filter that slows every level check
@SpringBootApplication(exclude = LogbackMetricsAutoConfiguration.class)
@ConfigurationPropertiesScan
@EnableScheduling
public class ValueGuardApplication {

	public static void main(String[] args) {
		SpringApplication.run(ValueGuardApplication.class, args);
	}

}
