package io.valueguard.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.valueguard.support.ApiClient;
import io.valueguard.support.InstanceProcess;

/**
 * Asks every instance that is up, about twice a second, what it has for one key and one value of each partition,
 * strictly and with {@code ?maxLag=1000}, and writes a claim through REST now and then, and a synchronous claim whose
 * ruling it times; each instance and kind in a loop of its own. Every answer is kept with its
 * time, so that each fault's window of unavailability can be read off afterwards, and so that no answer of 500 goes
 * unseen.
 */
final class LookupProbe implements AutoCloseable {

	enum Kind {

		STRICT, STALE, WRITE,

		/**
		 * A synchronous claim of a fresh key ({@code ?wait=30s}): how long from a claim to its ruling, through
		 * whatever a fault holds up (a stage stalled behind a dead transaction's records); 202 when not ruled in 30 s.
		 */
		RULED

	}

	/**
	 * One answer: status -1 when the request itself failed (the instance died or froze under it); how long it took,
	 * and which instance's store answered (empty when none did).
	 */
	record Answer(long atMillis, String instance, Kind kind, String path, int status, long tookMillis,
			String servedBy) {

		boolean available() {
			return this.status == 200 || this.status == 404 || this.status == 202;
		}

		static String csvHeader() {
			return "at_millis,instance,kind,path,status,took_millis,served_by";
		}

		String csv() {
			return this.atMillis + "," + this.instance + "," + this.kind + "," + this.path + "," + this.status + ","
					+ this.tookMillis + "," + this.servedBy;
		}

	}

	/** How long a synchronous claim waits for its ruling: the API's most. */
	static final Duration RULING_WAIT = Duration.ofSeconds(30);

	/** Each loop's pace: together about the load of the single loop that asked every kind in turn before. */
	private static final Duration ROUND = Duration.ofMillis(600);

	private final List<InstanceProcess> instances;

	private final List<String> paths;

	private final int values;

	private final List<Answer> answers = new ArrayList<>();

	private final Random random = new Random();

	private final AtomicLong writes = new AtomicLong();

	private final List<Thread> threads = new ArrayList<>();

	private volatile boolean running = true;

	LookupProbe(List<InstanceProcess> instances, List<String> keys, List<String> values, int valueCount) {
		this.instances = instances;
		this.values = valueCount;
		this.paths = new ArrayList<>();
		keys.forEach((key) -> this.paths.add("/api/bindings?key=" + ApiClient.parameter(key)));
		values.forEach((value) -> this.paths.add("/api/owners?value=" + ApiClient.parameter(value)));
		// a loop of its own for each instance and kind: a strict lookup that waits out a frozen instance's timeout
		// must not hold up the stale reads and writes whose answers the report times
		for (InstanceProcess instance : this.instances) {
			for (Kind kind : Kind.values()) {
				Thread thread = new Thread(() -> run(instance, kind), "lookup-probe-" + instance.name() + "-" + kind);
				thread.setDaemon(true);
				this.threads.add(thread);
			}
		}
	}

	LookupProbe start() {
		this.threads.forEach(Thread::start);
		return this;
	}

	private void run(InstanceProcess instance, Kind kind) {
		while (this.running) {
			long started = System.nanoTime();
			if (instance.answering()) {
				probe(instance, kind);
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

	private void probe(InstanceProcess instance, Kind kind) {
		// a client of its own each round: a kept-alive connection to an instance killed and restarted meanwhile would
		// fail the next write (not retried, not idempotent) and count as the instance's failure, not the service's
		ApiClient api = new ApiClient(instance.port(), (kind == Kind.RULED) ? RULING_WAIT.plusSeconds(15)
				: Duration.ofSeconds(15));
		switch (kind) {
			case STRICT -> this.paths.forEach((path) -> ask(instance, kind, path, () -> api.get(path)));
			case STALE -> this.paths.forEach((path) -> ask(instance, kind, path + "&maxLag=1000",
					() -> api.get(path + "&maxLag=1000")));
			case WRITE -> {
				String key = "rest-" + this.writes.incrementAndGet();
				String value = "v" + this.random.nextInt(this.values);
				ask(instance, kind, "PUT /api/bindings/" + key, () -> api.claim(key, value));
			}
			case RULED -> {
				String key = "ruled-" + this.writes.incrementAndGet();
				String value = "v" + this.random.nextInt(this.values);
				ask(instance, kind, "PUT /api/bindings/" + key + "?wait=" + RULING_WAIT.toSeconds() + "s",
						() -> api.claim(key, value, RULING_WAIT.toSeconds() + "s"));
			}
		}
	}

	private void ask(InstanceProcess instance, Kind kind, String path, Supplier<ApiClient.Reply> request) {
		long started = System.nanoTime();
		int status;
		String servedBy = "";
		try {
			ApiClient.Reply reply = request.get();
			status = reply.status();
			servedBy = reply.headers().firstValue("X-ValueGuard-Served-By").orElse("");
		}
		catch (RuntimeException ex) {
			status = -1;
		}
		long took = (System.nanoTime() - started) / 1_000_000;
		synchronized (this.answers) {
			this.answers.add(new Answer(System.currentTimeMillis(), instance.name(), kind, path, status, took,
					servedBy));
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
		for (Thread thread : this.threads) {
			try {
				thread.join(Duration.ofSeconds(30).toMillis());
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return;
			}
		}
	}

}
