package io.valueguard.kafka;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;

import io.valueguard.config.ValueGuardProperties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;

import org.springframework.cloud.stream.binder.kafka.streams.InteractiveQueryService;
import org.springframework.cloud.stream.binder.kafka.streams.KafkaStreamsRegistry;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.stereotype.Component;

/**
 * Finds the Kafka Streams client behind each store: {@code bindings} lives in the key stage, {@code owners} in the
 * value stage. This instance's address comes from the binder's {@link InteractiveQueryService}; key metadata and
 * store reads go to the store's own client, because the service asks every client of the process in turn (one
 * client that is not running would fail lookups of the other's store) and cannot read one exact partition or a
 * standby with its lag (docs/design.md, "Answering lookups on any instance").
 */
@Component
public class StreamsClients {

	/** The key stage's store: key to its current claim. */
	public static final String BINDINGS = "bindings";

	/** The value stage's store: value to its top claim. */
	public static final String OWNERS = "owners";

	private final KafkaStreamsRegistry registry;

	private final ValueGuardProperties properties;

	private final HostInfo self;

	/**
	 * Each store's factory bean, once found: reading a factory's application id copies its whole configuration, which
	 * cost a lookup several percent of its CPU when done on every request.
	 */
	private final Map<String, StreamsBuilderFactoryBean> factories = new ConcurrentHashMap<>();

	public StreamsClients(KafkaStreamsRegistry registry, InteractiveQueryService queries,
			ValueGuardProperties properties) {
		this.registry = registry;
		this.properties = properties;
		this.self = queries.getCurrentHostInfo();
	}

	/** This instance, as other instances and Kafka Streams metadata name it. */
	public HostInfo self() {
		return this.self;
	}

	public String applicationId(String store) {
		return switch (store) {
			case BINDINGS -> this.properties.keyStageApplicationId();
			case OWNERS -> this.properties.valueStageApplicationId();
			default -> throw new IllegalArgumentException("Unknown store " + store);
		};
	}

	/** The client that holds {@code store}, while it has been started. */
	public Optional<KafkaStreams> forStore(String store) {
		// the factory bean stays, its client is replaced when the supervisor restarts it
		return factoryFor(store).map(StreamsBuilderFactoryBean::getKafkaStreams);
	}

	/** The factory bean of the stage that holds {@code store}: its configuration, and its client once started. */
	public Optional<StreamsBuilderFactoryBean> factoryFor(String store) {
		StreamsBuilderFactoryBean factory = this.factories.get(store);
		if (factory == null) {
			String applicationId = applicationId(store);
			factory = all().stream()
				.filter((candidate) -> applicationId.equals(applicationIdOf(candidate)))
				.findFirst()
				.orElse(null);
			if (factory == null) {
				return Optional.empty();
			}
			this.factories.put(store, factory);
		}
		return Optional.of(factory);
	}

	/**
	 * The client that holds {@code store}, if it can answer queries now (RUNNING or REBALANCING); otherwise an
	 * {@link InvalidStateStoreException}, which lookups treat as "try again or elsewhere", never as a server error.
	 */
	public KafkaStreams queryable(String store) {
		KafkaStreams streams = forStore(store)
			.orElseThrow(() -> new InvalidStateStoreException("the " + store + " stage has not started"));
		KafkaStreams.State state = streams.state();
		if (!state.isRunningOrRebalancing()) {
			throw notRunning(store, state);
		}
		return streams;
	}

	/** The error for a client that left RUNNING between a check and a call. */
	public static InvalidStateStoreException notRunning(String store, KafkaStreams.State state) {
		return new InvalidStateStoreException("the " + store + " stage is " + state
				+ ((state == KafkaStreams.State.ERROR) ? "; it is being restarted" : ""));
	}

	public static String applicationIdOf(StreamsBuilderFactoryBean factory) {
		Properties configuration = factory.getStreamsConfiguration();
		String applicationId = (configuration != null)
				? configuration.getProperty(StreamsConfig.APPLICATION_ID_CONFIG) : null;
		return (applicationId != null) ? applicationId : "unknown";
	}

	public List<StreamsBuilderFactoryBean> all() {
		return this.registry.streamsBuilderFactoryBeans();
	}

}
