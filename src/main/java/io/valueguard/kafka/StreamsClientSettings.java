package io.valueguard.kafka;

import io.valueguard.system.ValueGuardProperties;

import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;
import org.springframework.stereotype.Component;

/** Client settings that Kafka Streams takes in code rather than in its configuration map, for both stages. */
@Component
class StreamsClientSettings implements StreamsBuilderFactoryBeanConfigurer {

	private final ValueGuardProperties.Streams streams;

	StreamsClientSettings(ValueGuardProperties properties) {
		this.streams = properties.streams();
	}

	@Override
	public void configure(StreamsBuilderFactoryBean factoryBean) {
		factoryBean.setLeaveGroupOnClose(this.streams.leaveGroupOnClose());
		factoryBean.setCloseTimeout((int) this.streams.closeTimeout().toSeconds());
	}

}
