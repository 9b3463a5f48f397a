package io.valueguard;

import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The same end-to-end scenarios against a real Kafka broker in a container. Skipped, not failed, where no Docker
 * engine runs.
 */
@Testcontainers(disabledWithoutDocker = true)
class ContainerKafkaIntegrationTests extends ValueGuardScenarios {

	@Container
	static final KafkaContainer kafka = new KafkaContainer("apache/kafka:4.1.1");

	@DynamicPropertySource
	static void kafkaProperties(DynamicPropertyRegistry registry) {
		registry.add("spring.kafka.bootstrap-servers", kafka::getBootstrapServers);
	}

}
