package io.valueguard.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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

	/** A thread dump's header line of one thread: its name and its native id. */
	private static final Pattern THREAD_LINE = Pattern.compile("(?m)^\"([^\"]*)\".* nid=0x([0-9a-f]+) ");

	private final Admin admin;

	private final Map<String, Set<String>> inputs;

	private final int partitions;

	private final List<Long> watched = new ArrayList<>();

	private final Map<Long, Double> cpuSeconds = new LinkedHashMap<>();

	/* Each watched process's CPU ticks by thread while timed; named only when asked for, as a thread dump costs. */
	private final Map<Long, Map<Long, Long>> threadTicksSpent = new HashMap<>();

	private double timedSeconds;

	private @Nullable Callable<Boolean> done;

	private @Nullable GroupProgress progress;

	private long progressTotal;

	private long quarterMillis = -1;

	private long allReadMillis = -1;

	private long caughtUpMillis = -1;

	private Duration deadline = Duration.ofMinutes(20);

	private long requestsOfPid = -1;

	private Map<String, BrokerRequests.Served> brokerRequests = Map.of();

	/* Each watched process's largest resident set while timed, in MiB. */
	private final Map<Long, Long> peakResidentMib = new HashMap<>();

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

	/**
	 * Also time the last three quarters: from when {@code group}'s committed offsets on {@code topic} first reach a
	 * quarter of {@code total}. A fresh JVM spends the first seconds compiling its hot paths (a third of a core and
	 * more in these runs), so this is closer to what a warm application does.
	 */
	CatchUp progressOf(String group, String topic, long total) {
		this.progress = new GroupProgress(group, topic);
		this.progressTotal = total;
		return this;
	}

	/** How long to wait for the start and then for the catch-up before giving up; 20 minutes unless set. */
	CatchUp within(Duration deadline) {
		this.deadline = deadline;
		return this;
	}

	/** The watched process's largest resident set while timed (sampled every 100 ms), in MiB; -1 when not known. */
	long peakResidentMib(long pid) {
		return this.peakResidentMib.getOrDefault(pid, -1L);
	}

	/** Milliseconds from a quarter of the progress to catch-up; -1 when not known. */
	long lastThreeQuartersMillis() {
		return (this.quarterMillis >= 0 && this.caughtUpMillis >= 0) ? this.caughtUpMillis - this.quarterMillis : -1;
	}

	/**
	 * Milliseconds from when the progress first reached its total (the first stage has committed its last claim) to
	 * catch-up: what the rest of the pipeline still had to do then; -1 when not known.
	 */
	long drainMillis() {
		return (this.allReadMillis >= 0 && this.caughtUpMillis >= 0) ? this.caughtUpMillis - this.allReadMillis : -1;
	}

	/** A consumer group's progress through one topic of its input. */
	private record GroupProgress(String group, String topic) {

	}

	/** Processes whose CPU time to account from start to catch-up. */
	CatchUp watching(long... pids) {
		for (long pid : pids) {
			this.watched.add(pid);
		}
		return this;
	}

	/** Also count the requests the broker in the JVM {@code pid} served while timed, by kind. */
	CatchUp countingRequestsOf(long pid) {
		this.requestsOfPid = pid;
		return this;
	}

	/** The requests the broker served while timed, by kind; empty when not counted or not readable. */
	Map<String, BrokerRequests.Served> brokerRequests() {
		return this.brokerRequests;
	}

	/** CPU seconds (user and system) the process spent while timed. */
	double cpuSeconds(long pid) {
		return this.cpuSeconds.getOrDefault(pid, Double.NaN);
	}

	/**
	 * Where the watched process's CPU went while timed, by kind of thread (Java thread names with their ids and numbers
	 * left out, so that the compiler threads count as one), busiest first: each kind's CPU as a share of the timed
	 * wall-clock time. A stream thread near 1 is what the process waits for, however many cores are idle. Ask while the
	 * process still runs: its threads are named from a thread dump.
	 */
	List<ThreadLoad> threadLoads(long pid) {
		Map<Long, Long> spent = this.threadTicksSpent.get(pid);
		return (spent != null) ? threadLoads(threadKinds(pid), spent, this.timedSeconds) : List.of();
	}

	/**
	 * Names the threads of a running application for {@code scripts/perf-summary.py}: a line per thread, its id and
	 * kind, after a first line naming the setting of the run, in {@code file}.
	 */
	static void writeThreadKinds(long pid, String setting, Path file) throws IOException {
		StringBuilder lines = new StringBuilder("# setting\t" + setting + "\n");
		threadKinds(pid).forEach((thread, kind) -> lines.append(thread).append('\t').append(kind).append('\n'));
		Files.writeString(file, lines);
	}

	/** A kind of thread and the CPU it spent, as a share of the timed wall-clock time (1: one core all along). */
	record ThreadLoad(String kind, double share) {

		@Override
		public String toString() {
			return String.format(Locale.ROOT, "%s %.2f", this.kind, this.share);
		}

	}

	/** From when {@code running} first holds until every group has caught up. */
	long time(Callable<Boolean> running, Process process) throws Exception {
		long deadline = System.nanoTime() + this.deadline.toNanos();
		while (!running.call()) {
			if (System.nanoTime() > deadline || (process != null && !process.isAlive())) {
				throw new IllegalStateException("the application did not start");
			}
			Thread.sleep(20);
		}
		try (BrokerRequests requests = attachToBroker()) {
			return timeRunning(requests, deadline);
		}
	}

	private @Nullable BrokerRequests attachToBroker() {
		if (this.requestsOfPid < 0) {
			return null;
		}
		try {
			return BrokerRequests.attach(this.requestsOfPid);
		}
		catch (Exception ex) {
			// a figure left out of the report, not a failed benchmark
			System.err.println("Broker requests not counted: " + ex);
			return null;
		}
	}

	private static Map<String, BrokerRequests.Served> served(@Nullable BrokerRequests requests) throws Exception {
		return (requests != null) ? requests.snapshot() : Map.of();
	}

	private long timeRunning(@Nullable BrokerRequests requests, long deadline) throws Exception {
		long started = System.nanoTime();
		Map<String, BrokerRequests.Served> servedAtStart = served(requests);
		Map<Long, Long> ticksAtStart = new HashMap<>();
		Map<Long, Map<Long, Long>> threadTicksAtStart = new HashMap<>();
		this.watched.forEach((pid) -> {
			ticksAtStart.put(pid, ticks(pid));
			threadTicksAtStart.put(pid, threadTicks(pid));
		});
		long caughtUpAt = 0;
		while (System.nanoTime() < deadline) {
			Thread.sleep(100);
			if (caughtUpAt == 0) {
				this.watched.forEach((pid) -> this.peakResidentMib.merge(pid, residentMib(pid), Math::max));
			}
			if (this.progress != null && this.allReadMillis < 0) {
				long committed = committed(this.progress);
				long millis = (System.nanoTime() - started) / 1_000_000;
				if (this.quarterMillis < 0 && committed * 4 >= this.progressTotal) {
					this.quarterMillis = millis;
				}
				if (committed >= this.progressTotal) {
					this.allReadMillis = millis;
				}
			}
			if ((this.done != null) ? this.done.call() : caughtUp()) {
				if (caughtUpAt == 0) {
					caughtUpAt = System.nanoTime();
					this.timedSeconds = (caughtUpAt - started) / 1e9;
					this.brokerRequests = BrokerRequests.between(servedAtStart, served(requests));
					this.watched.forEach((pid) -> {
						this.cpuSeconds.put(pid, (ticks(pid) - ticksAtStart.get(pid)) / TICKS);
						Map<Long, Long> atStart = threadTicksAtStart.get(pid);
						Map<Long, Long> spent = new HashMap<>();
						threadTicks(pid).forEach((thread, ticks) -> spent.put(thread,
								ticks - atStart.getOrDefault(thread, 0L)));
						this.threadTicksSpent.put(pid, spent);
					});
				}
				else if (System.nanoTime() - caughtUpAt > 500_000_000L) {
					this.caughtUpMillis = (caughtUpAt - started) / 1_000_000;
					return this.caughtUpMillis;
				}
			}
			else {
				caughtUpAt = 0;
			}
		}
		throw new IllegalStateException("did not catch up within " + this.deadline);
	}

	/** A process's resident set now, in MiB; 0 once it has gone. */
	static long residentMib(long pid) {
		try {
			for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
				if (line.startsWith("VmRSS:")) {
					return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024;
				}
			}
			return 0;
		}
		catch (IOException ex) {
			return 0;
		}
	}

	private static List<ThreadLoad> threadLoads(Map<Long, String> kinds, Map<Long, Long> spentByThread,
			double seconds) {
		Map<String, Long> spent = new HashMap<>();
		spentByThread.forEach((thread, ticks) -> spent.merge(kinds.getOrDefault(thread, "other"), ticks, Long::sum));
		return spent.entrySet()
			.stream()
			.map((kind) -> new ThreadLoad(kind.getKey(), kind.getValue() / TICKS / seconds))
			.sorted(Comparator.comparingDouble(ThreadLoad::share).reversed())
			.toList();
	}

	/**
	 * Each thread's kind, by thread id, from a thread dump (the kernel cuts thread names at 15 characters): its Java
	 * name without ids and numbers, and for a stream thread which stage it runs.
	 */
	private static Map<Long, String> threadKinds(long pid) {
		Map<Long, String> kinds = new HashMap<>();
		try {
			Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
					Long.toString(pid), "Thread.print").redirectErrorStream(true).start();
			String dump = new String(jcmd.getInputStream().readAllBytes());
			jcmd.waitFor();
			Matcher thread = THREAD_LINE.matcher(dump);
			while (thread.find()) {
				kinds.put(Long.parseLong(thread.group(2), 16), kind(thread.group(1)));
			}
		}
		catch (IOException ex) {
			// no dump: every thread counts as "other"
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		return kinds;
	}

	private static String kind(String name) {
		String stage = name.contains("-keys-") ? " (keys)" : name.contains("-values-") ? " (values)" : "";
		String kind = name.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "")
			.replaceAll("bench-(vg|baseline|seed)-[0-9a-f]{8}(-keys|-values)?", "")
			.replaceAll("[#-][0-9]+|(?<=Thread)[0-9]+$", "")
			.replaceAll("^[- |]+|[- |]+$", "");
		return kind + stage;
	}

	/** CPU seconds (user and system) the process has spent in its life so far. */
	static double cpuSecondsSoFar(long pid) {
		return ticks(pid) / TICKS;
	}

	private static long ticks(long pid) {
		try {
			return ticks(Path.of("/proc", Long.toString(pid), "stat"));
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/** utime + stime of each thread of a process, in clock ticks, by thread id. */
	private static Map<Long, Long> threadTicks(long pid) {
		Map<Long, Long> threads = new HashMap<>();
		try (var tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
			for (Path task : tasks.toList()) {
				try {
					threads.put(Long.parseLong(task.getFileName().toString()), ticks(task.resolve("stat")));
				}
				catch (IOException ex) {
					// the thread ended meanwhile
				}
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		return threads;
	}

	private static long ticks(Path stat) throws IOException {
		String line = Files.readString(stat);
		// fields after the command name, which is in parentheses and may hold spaces
		String[] fields = line.substring(line.lastIndexOf(')') + 2).split(" ");
		return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
	}

	/** The sum of a group's committed offsets over a topic's partitions. */
	private long committed(GroupProgress of) throws Exception {
		return this.admin.listConsumerGroupOffsets(of.group())
			.partitionsToOffsetAndMetadata()
			.get()
			.entrySet()
			.stream()
			.filter((entry) -> entry.getKey().topic().equals(of.topic()) && entry.getValue() != null)
			.mapToLong((entry) -> entry.getValue().offset())
			.sum();
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
