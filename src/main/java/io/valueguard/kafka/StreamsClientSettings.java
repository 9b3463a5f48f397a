package io.valueguard.kafka;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.valueguard.config.StoreType;
import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.KafkaStreamsCustomizer;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBeanConfigurer;
import org.springframework.stereotype.Component;

/**
 * Client settings that ValueGuard derives for both stages: closing, static group membership from the instance name,
 * RocksDB's shared memory budget, and what happens when a stream thread dies; and, before a client exists, that its
 * state directory holds nothing from another cluster ({@link LocalStateOrigin}) and that its stores' changelog
 * topics exist ({@link ChangelogTopics}). Other parts of the application customize the clients through
 * {@link KafkaStreamsCustomizer} beans, which run here, never through the factory bean itself.
 */
@Component
class StreamsClientSettings implements StreamsBuilderFactoryBeanConfigurer {

	private static final Log logger = LogFactory.getLog(StreamsClientSettings.class);

	/** The stages' producers' first retry backoff, see {@link #retryTransactionsSoon}. */
	static final long RETRY_BACKOFF_MS = 10;

	/** The address other instances reach this one at, as the binder configuration sets it. */
	private static final String APPLICATION_SERVER = "spring.cloud.stream.kafka.streams.binder.configuration."
			+ StreamsConfig.APPLICATION_SERVER_CONFIG;

	private final ValueGuardProperties.Streams streams;

	private final ValueGuardProperties properties;

	private final String instanceName;

	private final StreamThreadFailures failures;

	private final ObjectProvider<KafkaStreamsCustomizer> customizers;

	private final LocalStateOrigin stateOrigin;

	private final ChangelogTopics changelogs;

	StreamsClientSettings(ValueGuardProperties properties, Environment environment, StreamThreadFailures failures,
			ObjectProvider<KafkaStreamsCustomizer> customizers, LocalStateOrigin stateOrigin,
			ChangelogTopics changelogs) {
		this.streams = properties.streams();
		this.properties = properties;
		this.instanceName = (properties.instanceName() != null) ? properties.instanceName()
				: derivedName(HostInfo.buildFromEndpoint(environment.getRequiredProperty(APPLICATION_SERVER)));
		this.failures = failures;
		this.customizers = customizers;
		this.stateOrigin = stateOrigin;
		this.changelogs = changelogs;
	}

	/**
	 * The stages' clients close after the web server has drained its open requests, as the binder's manager of them
	 * does: at Spring Kafka's phase for them, which is higher, they closed first, so the lookups and synchronous
	 * writes the server was letting finish could no longer be answered (their stores closed under them).
	 */
	static final int PHASE = WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE - 1;

	@Override
	public void configure(StreamsBuilderFactoryBean factoryBean) {
		// the binder starts them itself, so the phase only orders their stop
		factoryBean.setPhase(PHASE);
		factoryBean.setLeaveGroupOnClose(this.streams.leaveGroupOnClose());
		factoryBean.setCloseTimeout((int) this.streams.closeTimeout().toSeconds());
		Properties configuration = factoryBean.getStreamsConfiguration();
		if (configuration != null) {
			if (!configuration.containsKey(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG)) {
				// Kafka Streams appends each thread's index, so one name serves every thread of both clients
				configuration.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, this.instanceName);
				logger.info("Static group membership for " + StreamsClients.applicationIdOf(factoryBean)
						+ " as instance '" + this.instanceName + "'");
			}
			if (!configuration.containsKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG)) {
				BoundedRocksDb.configure(configuration, this.properties.rocksdb());
			}
			configuration.put(LocalStateOrigin.INPUT_TOPIC_IDS, this.stateOrigin.inputTopicIds());
			outlastOutagesWhenSending(configuration);
			retryTransactionsSoon(configuration);
			factoryBean.setStreamsConfiguration(configuration);
			Map<String, String> changelogIds = this.changelogs.ensure(StreamsClients.applicationIdOf(factoryBean),
					configuration);
			if (this.properties.store().type() == StoreType.ROCKSDB) {
				// in memory every start restores from the changelogs: no local state that could come from elsewhere
				this.stateOrigin.claim(stateDirectory(configuration), StreamsClients.applicationIdOf(factoryBean),
						changelogIds);
			}
		}
		// A factory bean holds one customizer, and a second setKafkaStreamsCustomizer silently replaces the first (the
		// thread-failure handler with it): every KafkaStreamsCustomizer bean runs through this one.
		List<KafkaStreamsCustomizer> others = this.customizers.orderedStream().toList();
		String applicationId = StreamsClients.applicationIdOf(factoryBean);
		factoryBean.setKafkaStreamsCustomizer((kafkaStreams) -> {
			others.forEach((customizer) -> customizer.customize(kafkaStreams));
			// the binder sets its own handler (shut the client down) just before start; a customizer runs after it
			kafkaStreams.setUncaughtExceptionHandler(this.failures.handlerFor(applicationId));
		});
	}

	/**
	 * The outboxes send when a task commits and on a schedule, outside processing, where Kafka Streams does not retry
	 * a send that timed out waiting for metadata (as it does while processing): the task's thread would die. With the
	 * whole cluster gone a client forgets its metadata, so such a send waits for the cluster to come back; it may wait
	 * as long as Kafka Streams waits out an outage ({@code task.timeout.ms}) instead of the producer's 60 s.
	 */
	static void outlastOutagesWhenSending(Properties configuration) {
		String maxBlock = StreamsConfig.producerPrefix(ProducerConfig.MAX_BLOCK_MS_CONFIG);
		if (!configuration.containsKey(maxBlock)) {
			Object taskTimeout = configuration.getOrDefault(StreamsConfig.TASK_TIMEOUT_MS_CONFIG,
					StreamsConfig.configDef().defaultValues().get(StreamsConfig.TASK_TIMEOUT_MS_CONFIG));
			configuration.put(maxBlock, String.valueOf(taskTimeout));
		}
	}

	/**
	 * How long the stages' producers wait before they retry, at first (Kafka's 100 ms would be a whole commit
	 * interval). A transaction that starts right after the last one committed meets CONCURRENT_TRANSACTIONS at the
	 * broker for the few milliseconds until that one's markers are written, and the producer retries its offsets
	 * after this backoff while the stream thread waits for it: with 100 ms, a claim someone waited for sat behind such
	 * a commit for 110 ms (docs/benchmarks.md, "Synchronous claims: where the time goes"). The backoff still doubles
	 * up to {@code retry.backoff.max.ms} (1 s) while the error lasts, so an unavailable broker is not retried faster.
	 */
	static void retryTransactionsSoon(Properties configuration) {
		String backoff = StreamsConfig.producerPrefix(ProducerConfig.RETRY_BACKOFF_MS_CONFIG);
		if (!configuration.containsKey(backoff) && !configuration.containsKey(ProducerConfig.RETRY_BACKOFF_MS_CONFIG)) {
			configuration.put(backoff, String.valueOf(RETRY_BACKOFF_MS));
		}
	}

	private static Path stateDirectory(Properties configuration) {
		Object configured = configuration.getOrDefault(StreamsConfig.STATE_DIR_CONFIG,
				StreamsConfig.configDef().defaultValues().get(StreamsConfig.STATE_DIR_CONFIG));
		return Path.of(String.valueOf(configured));
	}

	/** {@code host:port} as a group instance id: the advertised endpoint is unique and stable by contract. */
	static String derivedName(HostInfo host) {
		return (host.host() + "-" + host.port()).replaceAll("[^A-Za-z0-9._-]", "_");
	}

}
