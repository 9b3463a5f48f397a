package io.valueguard.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.valueguard.kafka.StreamsClients;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.streams.KafkaStreams;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;

/**
 * Kafka Streams' own metrics (client, thread, task, processor and state store, RocksDB's statistics- and
 * property-based ones included, and those of its consumers, producers and admin client) in Micrometer, bound once per
 * streams client and kept in step as tasks come and go. Tags are stable and the same for every meter of a name:
 * {@code application_id}, and {@code thread}, {@code task}, {@code store}, {@code processor}, {@code client} where
 * Kafka has them. The random client and process ids are left out, so series survive restarts and both stages' stores
 * can never collide on tag keys. Values that are not finite numbers are exposed as NaN, and a counter that Kafka
 * resets or reports negative (as after a restore) holds its greatest value, so a scrape never fails.
 */
class StreamsMeterBinder implements DisposableBean {

	private static final Log logger = LogFactory.getLog(StreamsMeterBinder.class);

	private final MeterRegistry registry;

	private final long refreshMillis;

	private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor((task) -> {
		Thread thread = new Thread(task, "valueguard-streams-metrics");
		thread.setDaemon(true);
		return thread;
	});

	private final Map<String, Binding> bindings = new ConcurrentHashMap<>();

	/*
	 * Every meter this binder has registered, by name and tags. Asking the registry instead (find) walks all of its
	 * meters for each new one: thousands of walks when a rebalance brings the tasks' metrics, on a core the pipeline
	 * needs.
	 */
	private final Set<MeterKey> bound = ConcurrentHashMap.newKeySet();

	private record MeterKey(String name, Tags tags) {
	}

	private record BoundMeter(MeterKey key, Meter meter) {
	}

	StreamsMeterBinder(MeterRegistry registry, java.time.Duration refresh) {
		this.registry = registry;
		this.refreshMillis = refresh.toMillis();
	}

	/** The meters of one streams client, by Kafka metric name. */
	private final class Binding {

		private final String applicationId;

		private final KafkaStreams streams;

		private final Map<MetricName, BoundMeter> meters = new ConcurrentHashMap<>();

		private final ScheduledFuture<?> refresh;

		private boolean closed;

		Binding(String applicationId, KafkaStreams streams) {
			this.applicationId = applicationId;
			this.streams = streams;
			this.refresh = StreamsMeterBinder.this.scheduler.scheduleWithFixedDelay(this::refresh, 0,
					StreamsMeterBinder.this.refreshMillis, TimeUnit.MILLISECONDS);
		}

		synchronized void refresh() {
			if (this.closed) {
				return;
			}
			try {
				Map<MetricName, ? extends Metric> current = this.streams.metrics();
				current.forEach((name, metric) -> {
					// text-valued metrics (ids, versions) say nothing a time series can; bound ones are not asked
					// for their value, which for a rate means computing it
					if (!this.meters.containsKey(name) && metric.metricValue() instanceof Number) {
						BoundMeter meter = bind(name, metric);
						if (meter != null) {
							this.meters.put(name, meter);
						}
					}
				});
				List<MetricName> gone = new ArrayList<>();
				this.meters.keySet().forEach((name) -> {
					if (!current.containsKey(name)) {
						gone.add(name);
					}
				});
				gone.forEach((name) -> unregister(this.meters.remove(name)));
			}
			catch (RuntimeException ex) {
				logger.warn("Could not refresh Kafka Streams metrics of " + this.applicationId + ": " + ex);
			}
		}

		private @Nullable BoundMeter bind(MetricName name, Metric metric) {
			String meterName = meterName(name);
			Tags tags = tags(this.applicationId, name);
			// two metrics on one meter would share it, and the first to go would take it along; the tags keep Kafka's
			// apart (client, topic, partition), and one they do not is left out
			MeterKey key = new MeterKey(meterName, tags);
			if (!StreamsMeterBinder.this.bound.add(key)) {
				logger.debug("Kafka metric " + name + " maps to a meter that is already bound: left out");
				return null;
			}
			Meter meter = name.name().endsWith("-total")
					? FunctionCounter.builder(meterName, metric, new LastGoodValue())
						.description(name.description())
						.tags(tags)
						.register(StreamsMeterBinder.this.registry)
					: Gauge.builder(meterName, metric, StreamsMeterBinder::gaugeValue)
						.description(name.description())
						.tags(tags)
						.register(StreamsMeterBinder.this.registry);
			return new BoundMeter(key, meter);
		}

		private void unregister(BoundMeter bound) {
			StreamsMeterBinder.this.registry.remove(bound.meter());
			StreamsMeterBinder.this.bound.remove(bound.key());
		}

		synchronized void close() {
			this.closed = true;
			this.refresh.cancel(false);
			this.meters.values().forEach(this::unregister);
			this.meters.clear();
		}

	}

	/** A counter must never go down: keep the greatest good value seen. */
	private static final class LastGoodValue implements ToDoubleFunction<Metric> {

		private double last;

		@Override
		public synchronized double applyAsDouble(Metric metric) {
			double value = gaugeValue(metric);
			if (!Double.isNaN(value) && value > this.last) {
				this.last = value;
			}
			return this.last;
		}

	}

	static double gaugeValue(Metric metric) {
		Object value = metric.metricValue();
		if (value instanceof Number number) {
			double result = number.doubleValue();
			return Double.isInfinite(result) ? Double.NaN : result;
		}
		return Double.NaN;
	}

	/**
	 * {@code stream-state-metrics} and {@code block-cache-usage} become {@code kafka.stream.state.block.cache.usage}.
	 * Kafka reports some metrics of one group and name for a whole consumer, per topic and per partition (for instance
	 * {@code records-lag-max}); Prometheus wants one set of tag keys per name, so the scope becomes part of the name:
	 * {@code kafka.stream.consumer.fetch.manager.partition.records.lag.max}.
	 */
	static String meterName(MetricName name) {
		String group = name.group().replaceFirst("-metrics$", "").replaceFirst("^stream-", "");
		String prefix = group.equals("stream") ? "kafka.stream" : "kafka.stream." + group;
		String scope = name.tags().containsKey("partition") ? "partition"
				: name.tags().containsKey("topic") ? "topic" : null;
		if (scope != null && !group.contains(scope)) {
			prefix = prefix + "." + scope;
		}
		return (prefix + "." + name.name()).replace('-', '.').toLowerCase(Locale.ROOT);
	}

	static Tags tags(String applicationId, MetricName name) {
		List<Tag> tags = new ArrayList<>();
		tags.add(Tag.of("application_id", applicationId));
		if (name.tags().isEmpty()) {
			// the streams client's own registry tags nothing (kafka-metrics-count): it is the client "streams", and
			// the same names of its Kafka clients carry a client tag, which Prometheus wants on every series of a name
			tags.add(Tag.of("client", "streams"));
		}
		name.tags().forEach((key, value) -> {
			switch (key) {
				case "process-id" -> {
					// random per process: left out so that series survive restarts
				}
				case "client-id" -> tags.add(Tag.of("client", clientRole(value)));
				case "thread-id" -> tags.add(Tag.of("thread", threadIndex(value)));
				case "task-id" -> tags.add(Tag.of("task", value));
				case "processor-node-id" -> tags.add(Tag.of("processor", value));
				case "rocksdb-state-id", "rocksdb-window-state-id", "rocksdb-session-state-id", "in-memory-state-id",
						"record-cache-id" ->
					tags.add(Tag.of("store", value));
				default -> tags.add(Tag.of(key.replace('-', '_'), value));
			}
		});
		return Tags.of(tags);
	}

	/**
	 * Which of a streams client's Kafka clients a metric is of, without the random process id the client id
	 * starts with: {@code StreamThread-1-consumer}, {@code restore-consumer} (one per streams client in Kafka 4.1),
	 * {@code StreamThread-1-producer}, {@code admin}, {@code global-consumer}, or {@code streams} for the streams
	 * client itself. The main and the restore consumer report the same metric names; without this they would collide.
	 */
	static String clientRole(String clientId) {
		int thread = clientId.lastIndexOf("StreamThread-");
		if (thread >= 0) {
			return clientId.substring(thread);
		}
		for (String role : List.of("global-consumer", "restore-consumer", "admin")) {
			if (clientId.endsWith("-" + role)) {
				return role;
			}
		}
		return "streams";
	}

	/** {@code valueguard-keys-<uuid>-StreamThread-2} becomes {@code 2}. */
	static String threadIndex(String threadId) {
		int marker = threadId.lastIndexOf("StreamThread-");
		if (marker >= 0) {
			return threadId.substring(marker + "StreamThread-".length());
		}
		int global = threadId.lastIndexOf("GlobalStreamThread");
		return (global >= 0) ? "global" : threadId;
	}

	/** A listener for one factory bean: binds its client's metrics when it starts, unbinds them when it stops. */
	StreamsBuilderFactoryBean.Listener listenerFor(StreamsBuilderFactoryBean factoryBean) {
		return new StreamsBuilderFactoryBean.Listener() {

			@Override
			public void streamsAdded(String id, KafkaStreams streams) {
				bind(id, StreamsClients.applicationIdOf(factoryBean), streams);
			}

			@Override
			public void streamsRemoved(String id, KafkaStreams streams) {
				unbind(id);
			}

		};
	}

	void bind(String id, String applicationId, KafkaStreams streams) {
		// the old client's meters go first: the new client registers the same meters, and removing the old ones
		// after that would take the new ones with them
		unbind(id);
		this.bindings.put(id, new Binding(applicationId, streams));
	}

	void unbind(String id) {
		Binding binding = this.bindings.remove(id);
		if (binding != null) {
			binding.close();
		}
	}

	@Override
	public void destroy() {
		this.bindings.values().forEach(Binding::close);
		this.scheduler.shutdownNow();
	}

}
