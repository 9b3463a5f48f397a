package io.valueguard;

import org.springframework.kafka.test.context.EmbeddedKafka;
import org.springframework.test.context.TestPropertySource;

/** The end-to-end scenarios with both stages' stores in memory ({@code valueguard.store.type=in-memory}). */
@EmbeddedKafka(count = 1, partitions = 4, brokerProperties = { "transaction.state.log.replication.factor=1",
		"transaction.state.log.min.isr=1", "offsets.topic.replication.factor=1" })
@TestPropertySource(properties = { "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}",
		"valueguard.store.type=in-memory" })
class InMemoryStoresIntegrationTests extends ValueGuardScenarios {

}
