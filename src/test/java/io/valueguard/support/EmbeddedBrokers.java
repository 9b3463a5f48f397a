package io.valueguard.support;

import java.util.Map;

import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/** Brokers in the test JVM, for tests that need one per test or more than one at a time. */
public final class EmbeddedBrokers {

	private EmbeddedBrokers() {
	}

	/** A started one-broker KRaft cluster whose internal topics fit one broker and take transactions; destroy it. */
	public static EmbeddedKafkaKraftBroker exactlyOnce() {
		EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 1);
		broker.brokerProperties(Map.of("transaction.state.log.replication.factor", "1",
				"transaction.state.log.min.isr", "1", "offsets.topic.replication.factor", "1"));
		broker.afterPropertiesSet();
		return broker;
	}

}
