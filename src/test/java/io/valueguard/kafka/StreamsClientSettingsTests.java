package io.valueguard.kafka;

import java.util.Properties;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StreamsClientSettingsTests {

	@Test
	void shouldLetSendsWaitForMetadataAsLongAsAnOutageIsWaitedOut() {
		Properties defaults = new Properties();
		StreamsClientSettings.outlastOutagesWhenSending(defaults);

		Properties raised = new Properties();
		raised.put("task.timeout.ms", "900000");
		StreamsClientSettings.outlastOutagesWhenSending(raised);

		assertThat(defaults.getProperty("producer.max.block.ms")).isEqualTo("300000");
		assertThat(raised.getProperty("producer.max.block.ms")).isEqualTo("900000");
	}

	@Test
	void shouldKeepAnExplicitMaxBlock() {
		Properties configuration = new Properties();
		configuration.put("producer.max.block.ms", "1000");
		StreamsClientSettings.outlastOutagesWhenSending(configuration);

		assertThat(configuration.getProperty("producer.max.block.ms")).isEqualTo("1000");
	}

}
