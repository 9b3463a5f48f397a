package io.valueguard.metrics;

import java.util.List;

import io.micrometer.core.instrument.MeterRegistry;
import io.valueguard.config.ValueGuardProperties;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;
import org.springframework.kafka.streams.KafkaStreamsMicrometerListener;

/** Wires Kafka Streams metrics and restore listeners into both stages' clients. */
@Configuration(proxyBeanMethods = false)
class StreamsMetricsConfiguration {

	/*
	 * Named like the binder's own Micrometer listener so that the binder does not create it: two binders of the same
	 * Kafka metrics would register every meter twice, with different tags.
	 */
	@Bean("binderStreamsListener")
	StreamsMeterBinder streamsMeterBinder(MeterRegistry registry, ValueGuardProperties properties) {
		return new StreamsMeterBinder(registry, properties.metrics().refreshInterval());
	}

	@Bean
	RestoreMetrics restoreMetrics(MeterRegistry registry) {
		return new RestoreMetrics(registry);
	}

	/** Run by the clients' one customizer in {@code kafka/StreamsClientSettings}, with the thread-failure handler. */
	@Bean
	KafkaStreamsCustomizer standbyMetricsCustomizer(RestoreMetrics restores) {
		return (streams) -> streams.setStandbyUpdateListener(restores);
	}

	@Bean
	StreamsBuilderFactoryBeanConfigurer streamsMetricsConfigurer(StreamsMeterBinder binder, RestoreMetrics restores) {
		return new StreamsBuilderFactoryBeanConfigurer() {

			@Override
			public void configure(StreamsBuilderFactoryBean factoryBean) {
				// Spring Boot adds its own generic listener; it binds RocksDB's cumulative gauges (number-open-files)
				// as counters that go negative and break every scrape, so ours replaces it
				List.copyOf(factoryBean.getListeners())
					.stream()
					.filter(KafkaStreamsMicrometerListener.class::isInstance)
					.forEach(factoryBean::removeListener);
				factoryBean.addListener(binder.listenerFor(factoryBean));
				factoryBean.setStateRestoreListener(restores);
			}

			@Override
			public int getOrder() {
				// after Spring Boot's configurer, whose listener this one removes
				return Ordered.LOWEST_PRECEDENCE;
			}

		};
	}

}
