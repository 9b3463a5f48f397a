package io.valueguard.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Applications started together and timed until every group has caught up with its inputs; also the CPU time the
 * watched processes spent meanwhile, read from {@code /proc}.
 */
final class CatchUp {

	/** Clock ticks per second of {@code /proc/<pid>/stat}: 100 on every Linux this runs on. */
	private static final double TICKS = 100.0;

	private final Admin admin;

	private final Map<String, Set<String>> inputs;

	private final int partitions;

	private final List<Long> watched = new ArrayList<>();

	private final Map<Long, Double> cpuSeconds = new LinkedHashMap<>();

	private @Nullable Callable<Boolean> done;

	CatchUp(Admin admin, int partitions, Map<String, Set<String>> inputs) {
		this.partitions = partitions;
		this.admin = admin;
		this.inputs = inputs;
	}

	/**
	 * Caught up when {@code done} says so, rather than when the groups' committed offsets reach the ends: for
	 * at-least-once, whose 30 s commit interval would otherwise be what is measured.
	 */
	CatchUp doneWhen(Callable<Boolean> done) {
		this.done = done;
		return this;
	}

	/** Processes whose CPU time to account from start to catch-up. */
	CatchUp watching(long... pids) {
		for (long pid : pids) {
			this.watched.add(pid);
		}
		return this;
	}

	/** CPU seconds (user and system) the process spent while timed. */
	double cpuSeconds(long pid) {
		return this.cpuSeconds.getOrDefault(pid, Double.NaN);
	}

	/** From when {@code running} first holds until every group has caught up. */
	long time(Callable<Boolean> running, Process process) throws Exception {
		long deadline = System.nanoTime() + Duration.ofMinutes(20).toNanos();
		while (!running.call()) {
			if (System.nanoTime() > deadline || (process != null && !process.isAlive())) {
				throw new IllegalStateException("the application did not start");
			}
			Thread.sleep(20);
		}
		long started = System.nanoTime();
		Map<Long, Long> ticksAtStart = new HashMap<>();
		this.watched.forEach((pid) -> ticksAtStart.put(pid, ticks(pid)));
		long caughtUpAt = 0;
		while (System.nanoTime() < deadline) {
			Thread.sleep(100);
			if ((this.done != null) ? this.done.call() : caughtUp()) {
				if (caughtUpAt == 0) {
					caughtUpAt = System.nanoTime();
					this.watched.forEach((pid) -> this.cpuSeconds.put(pid, (ticks(pid) - ticksAtStart.get(pid)) / TICKS));
				}
				else if (System.nanoTime() - caughtUpAt > 500_000_000L) {
					return (caughtUpAt - started) / 1_000_000;
				}
			}
			else {
				caughtUpAt = 0;
			}
		}
		throw new IllegalStateException("did not catch up within 20 minutes");
	}

	/** utime + stime of a process, in clock ticks. */
	private static long ticks(long pid) {
		try {
			String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
			// fields after the command name, which is in parentheses and may hold spaces
			String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
			return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** Every group's committed offsets at its inputs' last stable offsets (at most a commit marker short). */
	private boolean caughtUp() throws Exception {
		for (Map.Entry<String, Set<String>> group : this.inputs.entrySet()) {
			Map<TopicPartition, OffsetAndMetadata> committed = this.admin
				.listConsumerGroupOffsets(group.getKey())
				.partitionsToOffsetAndMetadata()
				.get();
			Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
			for (String topic : group.getValue()) {
				for (int partition = 0; partition < this.partitions; partition++) {
					latest.put(new TopicPartition(topic, partition), OffsetSpec.latest());
				}
			}
			Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = this.admin
				.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
				.all()
				.get();
			for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
				OffsetAndMetadata offset = committed.get(end.getKey());
				long position = (offset != null) ? offset.offset() : 0;
				// a transactional topic ends with a commit marker that no consumer position passes
				long slack = end.getKey().topic().startsWith("bench-") ? 1 : 0;
				if (end.getValue().offset() - position > slack) {
					return false;
				}
			}
		}
		return true;
	}

}
