package io.valueguard.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.valueguard.support.ApiClient;
import io.valueguard.support.InstanceProcess;
import io.valueguard.support.Scrape;

/**
 * Samples, while an instance takes its claims, how large its stores' index and filters are against the share of the
 * block cache kept for them (the gauges behind the alert {@code ValueGuardRocksDBIndexOutgrowsCache}) beside the claims
 * it has applied: where the rate falls against where the alert would fire. Each sample is appended to a CSV file
 * beside the report as it is taken, so that a run stopped before its end (the largest keyspaces take hours) keeps
 * them; {@link #summary()} gives them in one sentence.
 */
final class IndexFilterWatch implements AutoCloseable {

	/** One reading: seconds since the watch began, claims the key stage applied, the estimate and the share. */
	record Sample(double seconds, long claims, long estimateBytes, long shareBytes) {

		double ratio() {
			return (this.shareBytes > 0) ? (double) this.estimateBytes / this.shareBytes : Double.NaN;
		}

	}

	private final ApiClient api;

	private final Path csv;

	private final long everyMillis;

	private final long started = System.nanoTime();

	private final List<Sample> samples = new ArrayList<>();

	private final Thread thread;

	private IndexFilterWatch(InstanceProcess instance, Path csv, Duration every) {
		this.api = instance.api();
		this.csv = csv;
		this.everyMillis = every.toMillis();
		this.thread = new Thread(this::sampleUntilClosed, "index-filter-watch");
		this.thread.setDaemon(true);
	}

	static IndexFilterWatch start(InstanceProcess instance, Path csv, Duration every) throws IOException {
		Files.writeString(csv, "seconds,claims,estimate_bytes,share_bytes\n");
		IndexFilterWatch watch = new IndexFilterWatch(instance, csv, every);
		watch.thread.start();
		return watch;
	}

	private void sampleUntilClosed() {
		try {
			while (true) {
				Thread.sleep(this.everyMillis);
				sample();
			}
		}
		catch (InterruptedException ex) {
			// closed
		}
	}

	private void sample() {
		ApiClient.Reply reply;
		try {
			reply = this.api.get("/actuator/prometheus");
		}
		catch (RuntimeException ex) {
			// a reading missed, not a failed benchmark
			return;
		}
		if (reply.status() != 200) {
			return;
		}
		Scrape scrape = new Scrape(reply.body());
		Sample sample = new Sample((System.nanoTime() - this.started) / 1e9,
				(long) scrape.sum("valueguard_key_stage_records_total", "outcome=\"claimed\"").orElse(0),
				(long) scrape.sum("valueguard_rocksdb_index_filter_estimate_bytes").orElse(0),
				(long) scrape.sum("valueguard_rocksdb_index_filter_share_bytes").orElse(0));
		synchronized (this.samples) {
			this.samples.add(sample);
		}
		try {
			Files.writeString(this.csv, String.format(Locale.ROOT, "%.1f,%d,%d,%d%n", sample.seconds(),
					sample.claims(), sample.estimateBytes(), sample.shareBytes()), StandardOpenOption.APPEND);
		}
		catch (IOException ex) {
			// the sample stays in the summary
		}
	}

	/**
	 * The estimate over the share at the last reading, when it first passed the share and twice the share, and the
	 * claims rate of the readings before and after each of those moments.
	 */
	String summary() {
		List<Sample> taken;
		synchronized (this.samples) {
			taken = List.copyOf(this.samples);
		}
		if (taken.isEmpty()) {
			return "index and filters not sampled";
		}
		StringBuilder summary = new StringBuilder(String.format(Locale.ROOT,
				"index and filters %.2f times the cache's share for them at the last of %d readings (%s)",
				taken.get(taken.size() - 1).ratio(), taken.size(), this.csv.getFileName()));
		for (double times : new double[] { 1, 2 }) {
			for (int i = 1; i < taken.size(); i++) {
				if (taken.get(i).ratio() > times) {
					summary.append(String.format(Locale.ROOT, "; past %.0f times the share after %,d claims, at %,.0f "
							+ "claims/s before and %s after", times, taken.get(i).claims(), rate(taken, i),
							(i + 1 < taken.size()) ? String.format(Locale.ROOT, "%,.0f", rate(taken, i + 1)) : "?"));
					break;
				}
			}
		}
		return summary.toString();
	}

	/** Claims per second between reading {@code i - 1} and reading {@code i}. */
	private static double rate(List<Sample> taken, int i) {
		Sample before = taken.get(i - 1);
		Sample after = taken.get(i);
		return (after.claims() - before.claims()) / (after.seconds() - before.seconds());
	}

	@Override
	public void close() throws InterruptedException {
		this.thread.interrupt();
		this.thread.join();
	}

}
