package io.valueguard.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongBinaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.valueguard.support.InstanceProcess;

/** What an instance's state costs: its stores on disk, and its restores as its log reports them. */
final class StateFigures {

	/** The line {@code RestoreMetrics} logs for each restored store partition. */
	private static final Pattern RESTORED = Pattern
		.compile("Restored (\\d+) records into store (\\w+) from \\S+ in (\\d+) ms");

	/** The line {@code WriteBehindTable} logs when a task's store is read into its key filters. */
	private static final Pattern FILTERED = Pattern
		.compile("Read (\\d+) keys of store (\\w+) of task \\S+ into its key filters in (\\d+) ms");

	private StateFigures() {
	}

	/**
	 * By store: the records restored (index 0) and the slowest partition's restore time in milliseconds (index 1),
	 * from the lines of an instance's log.
	 */
	static Map<String, long[]> restoredByStore(String log) {
		// partitions restore side by side: the store took as long as its slowest partition
		return byStore(RESTORED, log, Math::max);
	}

	/**
	 * By store: the keys read into the tasks' key filters after their restores (index 0) and the tasks' passes in all,
	 * in milliseconds (index 1), from the lines of an instance's log.
	 */
	static Map<String, long[]> filteredByStore(String log) {
		// a stage's thread starts its tasks one after another: their passes add up
		return byStore(FILTERED, log, Long::sum);
	}

	private static Map<String, long[]> byStore(Pattern line, String log, LongBinaryOperator millis) {
		Map<String, long[]> stores = new TreeMap<>();
		Matcher matcher = line.matcher(log);
		while (matcher.find()) {
			long[] totals = stores.computeIfAbsent(matcher.group(2), (store) -> new long[2]);
			totals[0] += Long.parseLong(matcher.group(1));
			totals[1] = millis.applyAsLong(totals[1], Long.parseLong(matcher.group(3)));
		}
		return stores;
	}

	/** What each store of a stopped instance takes on disk (RocksDB files, every partition), in bytes by store. */
	static Map<String, Long> bytesOnDisk(Path stateDir) throws IOException {
		Map<String, Long> bytes = new TreeMap<>();
		try (var files = Files.walk(stateDir)) {
			for (Path file : files.filter(Files::isRegularFile).toList()) {
				Path relative = stateDir.relativize(file);
				for (int i = 0; i + 1 < relative.getNameCount(); i++) {
					if (relative.getName(i).toString().equals("rocksdb")) {
						bytes.merge(relative.getName(i + 1).toString(), Files.size(file), Long::sum);
					}
				}
			}
		}
		return bytes;
	}

	/**
	 * Starts the stopped instance again and waits until it is ready; returns how long that took in milliseconds and
	 * leaves the restores of this start at the end of its log (after its last {@code --- start} line).
	 */
	static long restartUntilReady(InstanceProcess instance, Duration within) throws InterruptedException {
		long restarted = System.nanoTime();
		instance.start();
		long deadline = restarted + within.toNanos();
		while (!instance.ready()) {
			if (System.nanoTime() > deadline || !instance.alive()) {
				throw new IllegalStateException("not ready " + within + " after the restart, see " + instance.logFile());
			}
			Thread.sleep(100);
		}
		return (System.nanoTime() - restarted) / 1_000_000;
	}

	/** What the instance's log says since its last start. */
	static String sinceLastStart(InstanceProcess instance) {
		String log = instance.log();
		return log.substring(log.lastIndexOf("--- start "));
	}

}
