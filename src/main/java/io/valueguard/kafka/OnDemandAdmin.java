package io.valueguard.kafka;

import java.time.Duration;

import org.apache.kafka.clients.admin.Admin;
import org.jspecify.annotations.Nullable;

import org.springframework.kafka.core.KafkaAdmin;

/**
 * An admin client for a watcher of the streams clients, opened when it first asks the broker something and closed
 * once it no longer needs to: an instance whose stages run steadily holds no connection for it. Used from the
 * watcher's own thread, and closed when the watcher stops.
 */
final class OnDemandAdmin {

	private final KafkaAdmin kafkaAdmin;

	private volatile @Nullable Admin admin;

	OnDemandAdmin(KafkaAdmin kafkaAdmin) {
		this.kafkaAdmin = kafkaAdmin;
	}

	Admin get() {
		Admin client = this.admin;
		if (client == null) {
			client = Admin.create(this.kafkaAdmin.getConfigurationProperties());
			this.admin = client;
		}
		return client;
	}

	void close() {
		Admin client = this.admin;
		this.admin = null;
		if (client != null) {
			client.close(Duration.ofSeconds(5));
		}
	}

}
