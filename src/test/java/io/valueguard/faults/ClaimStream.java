package io.valueguard.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * A steady stream of random claims at a fixed rate, as a user's producer would write them: many keys racing for few
 * values, tombstones, re-deliveries of recent records, timestamps jittered by up to a second either way so that they
 * run out of order within and across keys. Its producer waits out broker outages (long delivery timeout) rather
 * than fail; what counts afterwards is the claims topic as written, not what this stream meant to write.
 */
final class ClaimStream implements AutoCloseable {

	private final KafkaProducer<byte[], byte[]> producer;

	private final String topic;

	private final Random random;

	private final int keys;

	private final int values;

	private final int perSecond;

	private final List<ProducerRecord<byte[], byte[]>> recent = new ArrayList<>();

	private final AtomicLong sent = new AtomicLong();

	private final AtomicLong failed = new AtomicLong();

	private volatile boolean running = true;

	private final Thread thread;

	ClaimStream(String bootstrapServers, String topic, long seed, int keys, int values, int perSecond) {
		this.producer = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
				ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5,
				ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 600_000, ProducerConfig.MAX_BLOCK_MS_CONFIG, 600_000,
				ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000), new ByteArraySerializer(),
				new ByteArraySerializer());
		this.topic = topic;
		this.random = new Random(seed);
		this.keys = keys;
		this.values = values;
		this.perSecond = perSecond;
		this.thread = new Thread(this::run, "claim-stream");
		this.thread.setDaemon(true);
	}

	ClaimStream start() {
		this.thread.start();
		return this;
	}

	long sent() {
		return this.sent.get();
	}

	long failed() {
		return this.failed.get();
	}

	private void run() {
		long started = System.nanoTime();
		while (this.running) {
			long due = (System.nanoTime() - started) * this.perSecond / 1_000_000_000L;
			while (this.sent.get() < due && this.running) {
				ProducerRecord<byte[], byte[]> record = next();
				this.sent.incrementAndGet();
				this.producer.send(record, (metadata, exception) -> {
					if (exception != null) {
						this.failed.incrementAndGet();
					}
				});
			}
			sleep(Duration.ofMillis(10));
		}
	}

	private ProducerRecord<byte[], byte[]> next() {
		int roll = this.random.nextInt(100);
		ProducerRecord<byte[], byte[]> record;
		if (roll < 5 && !this.recent.isEmpty()) {
			// a re-delivery: the same record again, timestamp included
			ProducerRecord<byte[], byte[]> earlier = this.recent.get(this.random.nextInt(this.recent.size()));
			return new ProducerRecord<>(this.topic, null, earlier.timestamp(), earlier.key(), earlier.value());
		}
		long timestamp = System.currentTimeMillis() - 1_000 + this.random.nextInt(2_000);
		byte[] value = (roll < 13) ? null : utf8("v" + this.random.nextInt(this.values));
		record = new ProducerRecord<>(this.topic, null, timestamp, utf8(key()), value);
		if (this.recent.size() < 200) {
			this.recent.add(record);
		}
		else {
			this.recent.set(this.random.nextInt(this.recent.size()), record);
		}
		return record;
	}

	private String key() {
		int index = this.random.nextInt(this.keys);
		// some keys outside the Basic Multilingual Plane, so that ties are broken by UTF-8 order end to end
		return (index % 7 == 3) ? "k" + index + "\uD83D\uDE00" : "k" + index;
	}

	/** Stops producing and waits until everything sent is acknowledged. */
	@Override
	public void close() {
		this.running = false;
		try {
			this.thread.join(Duration.ofSeconds(30).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.producer.flush();
		this.producer.close(Duration.ofSeconds(30));
	}

	private static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	private static void sleep(Duration duration) {
		try {
			Thread.sleep(duration.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
	}

}
