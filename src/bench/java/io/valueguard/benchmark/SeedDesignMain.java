package io.valueguard.benchmark;

import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.slf4j.LoggerFactory;

/**
 * The design a team would copy from the question ValueGuard started from (seed 000), on Kafka 4's Processor API, in a
 * JVM of its own: a global store of value to key, fed by a topic of its own, and a key-partitioned table of key to
 * value. A claim whose value the global store names another key for writes a tombstone for that key back to the
 * input, to be processed like any claim; every change of the table goes to the output topic.
 * <p>
 * It is built in good faith: a tombstone frees its key's value in the global store only if the store still names that
 * key, and a key moving away frees its old value the same way. It races all the same, which is why it is a baseline
 * and not a design: the global store is fed through a topic, read_committed, so claims of one value on two partitions
 * within a commit interval both find it free (two holders); and a written-back tombstone is unconditional, so a key
 * that claimed another value before its tombstone arrived loses that value too (a key wrongly emptied).
 * <p>
 * The benchmark's claims topic is shared by every run, so tombstones go to a topic of the application's own, which it
 * reads beside the claims: the same as writing them into the input. Arguments: bootstrap servers, application id,
 * claims topic, output topic, tombstones topic, owners topic, state directory, then Kafka Streams settings as
 * {@code name=value}. Prints {@code RUNNING} when it is.
 */
public final class SeedDesignMain {

	private static final String BINDINGS = "bindings";

	private static final String OWNERS = "owners-by-value";

	private SeedDesignMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		Properties config = new Properties();
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
		config.put(StreamsConfig.STATE_DIR_CONFIG, args[6]);
		for (int i = 7; i < args.length; i++) {
			String[] setting = args[i].split("=", 2);
			config.put(setting[0], setting[1]);
		}
		KafkaStreams streams = new KafkaStreams(topology(args[2], args[3], args[4], args[5]), config);
		streams.setStateListener((now, before) -> {
			if (now == KafkaStreams.State.RUNNING) {
				System.out.println("RUNNING");
			}
		});
		Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
		streams.start();
		new CountDownLatch(1).await();
	}

	static Topology topology(String claims, String output, String tombstones, String owners) {
		Topology topology = new Topology();
		topology.addGlobalStore(
				Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(OWNERS), Serdes.String(), Serdes.String())
					.withLoggingDisabled(),
				"owners-source", Serdes.String().deserializer(), Serdes.String().deserializer(), owners,
				"owners-updater", GlobalOwnersUpdater::new);
		topology.addSource("claims-source", Serdes.String().deserializer(), Serdes.String().deserializer(), claims,
				tombstones);
		topology.addProcessor("claim", ClaimProcessor::new, "claims-source");
		topology.addStateStore(
				Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(BINDINGS), Serdes.String(), Serdes.String()),
				"claim");
		topology.addSink("output", output, Serdes.String().serializer(), Serdes.String().serializer(), "claim");
		topology.addSink("tombstones", tombstones, Serdes.String().serializer(), Serdes.String().serializer(), "claim");
		topology.addSink("owners", owners, Serdes.String().serializer(), Serdes.String().serializer(), "claim");
		return topology;
	}

	/** Keeps the global store in step with the owners topic: value to key, a tombstone deletes. */
	private static final class GlobalOwnersUpdater implements Processor<String, String, Void, Void> {

		private KeyValueStore<String, String> owners;

		@Override
		public void init(ProcessorContext<Void, Void> context) {
			this.owners = context.getStateStore(OWNERS);
		}

		@Override
		public void process(Record<String, String> record) {
			if (record.value() == null) {
				this.owners.delete(record.key());
			}
			else {
				this.owners.put(record.key(), record.value());
			}
		}

	}

	/** A claim (key, value) or a release (key, null), from the input or written back as a tombstone. */
	private static final class ClaimProcessor implements Processor<String, String, String, String> {

		private ProcessorContext<String, String> context;

		private KeyValueStore<String, String> bindings;

		private KeyValueStore<String, String> owners;

		@Override
		public void init(ProcessorContext<String, String> context) {
			this.context = context;
			this.bindings = context.getStateStore(BINDINGS);
			this.owners = context.getStateStore(OWNERS);
		}

		@Override
		public void process(Record<String, String> record) {
			String key = record.key();
			if (key == null) {
				return;
			}
			String value = record.value();
			String held = this.bindings.get(key);
			if (value == null) {
				if (held != null) {
					this.bindings.delete(key);
					this.context.forward(record, "output");
					free(record, held, key);
				}
				return;
			}
			if (value.equals(held)) {
				return;
			}
			String owner = this.owners.get(value);
			if (owner != null && !owner.equals(key)) {
				// the old holder loses it: a tombstone back into the input, processed wherever that key lives
				this.context.forward(record.withKey(owner).withValue(null), "tombstones");
			}
			if (held != null) {
				free(record, held, key);
			}
			this.bindings.put(key, value);
			this.context.forward(record, "output");
			this.context.forward(record.withKey(value).withValue(key), "owners");
		}

		/** Frees {@code value} in the global store, if the store still names {@code key} as its owner. */
		private void free(Record<String, String> record, String value, String key) {
			if (Objects.equals(this.owners.get(value), key)) {
				this.context.forward(record.withKey(value).withValue(null), "owners");
			}
		}

	}

}
