package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What a JVM's unified GC log ({@link #option(Path)}) says about its stop-the-world pauses: how many collections of
 * each kind, how long the application stood still, and how much heap the collector kept committed. The figures the
 * benchmarks report beside their rates, so that a claim about a collector's settings can be checked from the same
 * run. Reads the pause lines G1, Parallel and Serial write at {@code -Xlog:gc}; other collectors' logs give no pauses.
 *
 * @param collector the collector the log names ({@code Using G1}), or {@code "unknown"}
 */
public record GcLog(String collector, List<Pause> pauses) {

	// [2026-12-05T19:16:24.074+0000][2.952s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 128M->7M(386M) 28.989ms
	private static final Pattern PAUSE = Pattern
		.compile("^(?:\\[([^\\]]+)\\])?.*GC\\(\\d+\\) Pause (\\w+)[^\\n]*? (\\d+)M->(\\d+)M\\((\\d+)M\\) ([\\d.]+)ms$");

	private static final Pattern COLLECTOR = Pattern.compile(".*\\] Using (.+)$");

	// the time decorator: an offset without a colon, which ISO_OFFSET_DATE_TIME does not read
	private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSZ");

	/**
	 * One pause: when it ended (null when the log has no time decorator), its kind as the log names it ({@code Young},
	 * {@code Full}, {@code Remark}, {@code Cleanup}), the heap used before and after, the heap committed after, and
	 * its length.
	 */
	public record Pause(@Nullable Instant at, String kind, long beforeMib, long afterMib, long committedMib,
			double millis) {

		boolean young() {
			return "Young".equals(this.kind);
		}

		boolean full() {
			return "Full".equals(this.kind);
		}

	}

	/** The JVM option that writes a log this class reads: GC events with wall-clock time and uptime. */
	public static String option(Path file) {
		return "-Xlog:gc:file=" + file.toAbsolutePath() + ":time,uptime";
	}

	/** The log in {@code file}; none when the file is missing (the JVM did not start, or logged elsewhere). */
	public static GcLog read(Path file) {
		if (!Files.exists(file)) {
			return new GcLog("unknown", List.of());
		}
		try {
			return parse(Files.readAllLines(file));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** A log's lines; lines of other tags (safepoints) and of concurrent phases are passed over. */
	public static GcLog parse(List<String> lines) {
		String collector = "unknown";
		List<Pause> pauses = new ArrayList<>();
		for (String line : lines) {
			Matcher pause = PAUSE.matcher(line);
			if (pause.matches()) {
				pauses.add(new Pause(instant(pause.group(1)), pause.group(2), Long.parseLong(pause.group(3)),
						Long.parseLong(pause.group(4)), Long.parseLong(pause.group(5)),
						Double.parseDouble(pause.group(6))));
				continue;
			}
			Matcher using = COLLECTOR.matcher(line);
			if (using.matches()) {
				collector = using.group(1);
			}
		}
		return new GcLog(collector, List.copyOf(pauses));
	}

	private static @Nullable Instant instant(@Nullable String decorator) {
		try {
			return (decorator != null) ? OffsetDateTime.parse(decorator, TIME).toInstant() : null;
		}
		catch (DateTimeParseException ex) {
			// an uptime-only decorator: no wall-clock time to cut the log by
			return null;
		}
	}

	/** The pauses from {@code from} until {@code to}: a measured stretch of a longer run, start-up left out. */
	public GcLog between(Instant from, Instant to) {
		return new GcLog(this.collector, this.pauses.stream()
			.filter((pause) -> pause.at() != null && !pause.at().isBefore(from) && pause.at().isBefore(to))
			.toList());
	}

	public long youngCollections() {
		return this.pauses.stream().filter(Pause::young).count();
	}

	public long fullCollections() {
		return this.pauses.stream().filter(Pause::full).count();
	}

	public double pausedSeconds() {
		return this.pauses.stream().mapToDouble(Pause::millis).sum() / 1000;
	}

	public double longestPauseMillis() {
		return this.pauses.stream().mapToDouble(Pause::millis).max().orElse(0);
	}

	/** The most heap the collector kept committed after any pause. */
	public long peakCommittedMib() {
		return this.pauses.stream().mapToLong(Pause::committedMib).max().orElse(0);
	}

	/**
	 * How much the application allocated between two young collections, the median: heap used before one, less heap
	 * used after the pause before it. What the young generation holds in practice, which the collector sizes from its
	 * pause goal and the time ratio it is given.
	 */
	public long medianAllocatedBetweenYoungMib() {
		List<Long> allocated = new ArrayList<>();
		for (int i = 1; i < this.pauses.size(); i++) {
			if (this.pauses.get(i).young()) {
				allocated.add(this.pauses.get(i).beforeMib() - this.pauses.get(i - 1).afterMib());
			}
		}
		return allocated.isEmpty() ? 0 : allocated.stream().sorted().toList().get(allocated.size() / 2);
	}

	/** One line for a report. */
	public String summary() {
		if (this.pauses.isEmpty()) {
			return this.collector + ": no pauses in the log";
		}
		return String.format(Locale.ROOT,
				"%s: %,d young and %,d full collections, %.1f s paused, the longest %.0f ms; %,d MiB allocated between "
						+ "young collections (median); heap committed up to %,d MiB",
				this.collector, youngCollections(), fullCollections(), pausedSeconds(), longestPauseMillis(),
				medianAllocatedBetweenYoungMib(), peakCommittedMib());
	}

}
