package io.valueguard.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

import io.valueguard.support.ApiClient;
import io.valueguard.support.InstanceProcess;

/**
 * Asks every instance that is up, a few times a second, what it has for one key and one value of each partition,
 * strictly and with {@code ?maxLag=1000}, and writes a claim through REST now and then. Every answer is kept with its
 * time, so that each fault's window of unavailability can be read off afterwards, and so that no answer of 500 goes
 * unseen.
 */
final class LookupProbe implements AutoCloseable {

	enum Kind {

		STRICT, STALE, WRITE

	}

	/** One answer: status -1 when the request itself failed (the instance died or froze under it). */
	record Answer(long atMillis, String instance, Kind kind, String path, int status) {

		boolean available() {
			return this.status == 200 || this.status == 404 || this.status == 202;
		}

	}

	private static final Duration ROUND = Duration.ofMillis(300);

	private final List<InstanceProcess> instances;

	private final List<String> paths;

	private final int values;

	private final List<Answer> answers = new ArrayList<>();

	private final ExecutorService pool;

	private final Random random = new Random();

	private final AtomicLong writes = new AtomicLong();

	private final Thread thread;

	private volatile boolean running = true;

	LookupProbe(List<InstanceProcess> instances, List<String> keys, List<String> values, int valueCount) {
		this.instances = instances;
		this.values = valueCount;
		this.paths = new ArrayList<>();
		keys.forEach((key) -> this.paths.add("/api/bindings?key=" + ApiClient.parameter(key)));
		values.forEach((value) -> this.paths.add("/api/owners?value=" + ApiClient.parameter(value)));
		this.pool = Executors.newFixedThreadPool(instances.size());
		this.thread = new Thread(this::run, "lookup-probe");
		this.thread.setDaemon(true);
	}

	LookupProbe start() {
		this.thread.start();
		return this;
	}

	private void run() {
		while (this.running) {
			long started = System.nanoTime();
			List<Future<?>> round = new ArrayList<>();
			for (InstanceProcess instance : this.instances) {
				if (instance.answering()) {
					round.add(this.pool.submit(() -> probe(instance)));
				}
			}
			for (Future<?> future : round) {
				try {
					future.get();
				}
				catch (Exception ex) {
					// recorded as failed requests inside probe
				}
			}
			long left = ROUND.toNanos() - (System.nanoTime() - started);
			if (left > 0) {
				try {
					Thread.sleep(left / 1_000_000);
				}
				catch (InterruptedException ex) {
					return;
				}
			}
		}
	}

	private void probe(InstanceProcess instance) {
		ApiClient api = new ApiClient(instance.port(), Duration.ofSeconds(15));
		for (String path : this.paths) {
			ask(instance, Kind.STRICT, path, () -> api.get(path).status());
			ask(instance, Kind.STALE, path + "&maxLag=1000", () -> api.get(path + "&maxLag=1000").status());
		}
		String key = "rest-" + this.writes.incrementAndGet();
		String value = "v" + this.random.nextInt(this.values);
		ask(instance, Kind.WRITE, "PUT /api/bindings/" + key, () -> api.claim(key, value).status());
	}

	private void ask(InstanceProcess instance, Kind kind, String path,
			java.util.function.IntSupplier request) {
		int status;
		try {
			status = request.getAsInt();
		}
		catch (RuntimeException ex) {
			status = -1;
		}
		synchronized (this.answers) {
			this.answers.add(new Answer(System.currentTimeMillis(), instance.name(), kind, path, status));
		}
	}

	List<Answer> answers() {
		synchronized (this.answers) {
			return List.copyOf(this.answers);
		}
	}

	@Override
	public void close() {
		this.running = false;
		try {
			this.thread.join(Duration.ofSeconds(30).toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.pool.shutdownNow();
	}

}
