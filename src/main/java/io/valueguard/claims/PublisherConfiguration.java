package io.valueguard.claims;

import java.util.Map;

import io.valueguard.config.ValueGuardProperties;
import org.apache.kafka.clients.producer.ProducerConfig;

import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.support.ProducerListener;

/**
 * The REST API's producer. Its settings go on its producer factory alone and must not be
 * {@code spring.kafka.producer.*}: the Kafka Streams binder copies those into both streams clients, where a 10 s
 * delivery timeout turns a short broker outage into a dead client.
 */
@Configuration(proxyBeanMethods = false)
class PublisherConfiguration {

	@Bean
	DefaultKafkaProducerFactoryCustomizer publisherProducerSettings(ValueGuardProperties properties) {
		ValueGuardProperties.Publisher publisher = properties.publisher();
		// a 202 means the record is durable; an answer within delivery.timeout.ms is final, so a 503 never hides a
		// claim that lands later
		return (producerFactory) -> producerFactory.updateConfigs(Map.of(ProducerConfig.ACKS_CONFIG, "all",
				ProducerConfig.MAX_BLOCK_MS_CONFIG, publisher.metadataWait().toMillis(),
				ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) publisher.requestTimeout().toMillis(),
				ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) publisher.deliveryTimeout().toMillis()));
	}

	/**
	 * Replaces Spring Kafka's listener, which logs a stack trace per failed send: {@link ClaimPublisher} turns each
	 * failure into a 503 and logs only when writes start and stop failing.
	 */
	@Bean
	ProducerListener<Object, Object> kafkaProducerListener() {
		return new ProducerListener<>() {
		};
	}

}
