package io.valueguard.claims;

import java.util.Map;

import io.valueguard.system.ValueGuardProperties;
import org.apache.kafka.clients.producer.ProducerConfig;

import org.springframework.boot.kafka.autoconfigure.DefaultKafkaProducerFactoryCustomizer;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.stereotype.Component;

/**
 * The REST API's producer settings, on its producer factory alone. They must not be {@code spring.kafka.producer.*}:
 * the Kafka Streams binder copies those into both streams clients, where a 10 s delivery timeout turns a short broker
 * outage into a dead client.
 */
@Component
class PublisherProducerSettings implements DefaultKafkaProducerFactoryCustomizer {

	private final ValueGuardProperties.Publisher publisher;

	PublisherProducerSettings(ValueGuardProperties properties) {
		this.publisher = properties.publisher();
	}

	@Override
	public void customize(DefaultKafkaProducerFactory<?, ?> producerFactory) {
		// a 202 means the record is durable; an answer within delivery.timeout.ms is final, so a 503 never hides a
		// claim that lands later
		producerFactory.updateConfigs(Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.MAX_BLOCK_MS_CONFIG,
				this.publisher.metadataWait().toMillis(), ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
				(int) this.publisher.requestTimeout().toMillis(), ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
				(int) this.publisher.deliveryTimeout().toMillis()));
	}

}
