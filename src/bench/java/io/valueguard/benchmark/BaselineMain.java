package io.valueguard.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.slf4j.LoggerFactory;

/**
 * The application a user would write without ValueGuard, in a JVM of its own as ValueGuard runs in one: the claims
 * topic read into {@code toTable(Materialized.as(...))} (RocksDB, changelog) and written to an output topic. Arguments:
 * bootstrap servers, application id, input topic, output topic, state directory, then Kafka Streams settings as
 * {@code name=value}. Prints {@code RUNNING} when it is. With {@code -Dvalueguard.bench.processed-file=<path>} it
 * keeps the number of records its stream threads have processed in that file, a clock that does not wait for
 * commits (at-least-once commits every 30 s).
 */
public final class BaselineMain {

	private BaselineMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		StreamsBuilder builder = new StreamsBuilder();
		builder.stream(args[2], Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
			.toTable(Materialized.as("latest"))
			.toStream()
			.to(args[3], Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
		Properties config = new Properties();
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
		config.put(StreamsConfig.STATE_DIR_CONFIG, args[4]);
		config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
		config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.ByteArraySerde.class);
		for (int i = 5; i < args.length; i++) {
			String[] setting = args[i].split("=", 2);
			config.put(setting[0], setting[1]);
		}
		KafkaStreams streams = new KafkaStreams(builder.build(), config);
		streams.setStateListener((now, before) -> {
			if (now == KafkaStreams.State.RUNNING) {
				System.out.println("RUNNING");
			}
		});
		Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
		streams.start();
		String processedFile = System.getProperty("valueguard.bench.processed-file");
		if (processedFile != null) {
			Thread reporter = new Thread(() -> reportProcessed(streams, Path.of(processedFile)), "processed-reporter");
			reporter.setDaemon(true);
			reporter.start();
		}
		new CountDownLatch(1).await();
	}

	private static void reportProcessed(KafkaStreams streams, Path file) {
		try {
			while (true) {
				Files.writeString(file, Long.toString(processed(streams)));
				Thread.sleep(50);
			}
		}
		catch (IOException | InterruptedException ex) {
			// the application is going away
		}
	}

	/** Records processed by every stream thread of the client (thread-level {@code process-total}). */
	static long processed(KafkaStreams streams) {
		return streams.metrics()
			.entrySet()
			.stream()
			.filter((metric) -> metric.getKey().group().equals("stream-thread-metrics")
					&& metric.getKey().name().equals("process-total"))
			.mapToLong((metric) -> ((Number) metric.getValue().metricValue()).longValue())
			.sum();
	}

}
