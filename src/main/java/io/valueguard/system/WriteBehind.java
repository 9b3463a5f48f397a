package io.valueguard.system;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.internals.ProcessorRecordContext;
import org.jspecify.annotations.Nullable;

/**
 * Writes by key that, while their task reads a backlog, wait for the task's commit and then go out once per key: the
 * latest of them. Kafka's cost is per record, and a key written twice between two commits then costs one record, not
 * two (docs/design.md, "Writes wait for the commit, while a task reads a backlog").
 * <p>
 * The first {@link #WRITE_THROUGH} writes after each commit go straight out: a task that keeps up with live input
 * writes fewer than that between two commits, few of them meet, and deferring them measured 65 to 95 ms more
 * claim-to-eviction latency (docs/benchmarks.md). Beyond that the task is reading a backlog, and the writes wait. Each
 * goes out under the record context it was made under. What waits goes out when the task commits (a
 * {@link PreCommitStore}), when {@link #MAX_PENDING} keys wait, and once the oldest has waited {@link #MAX_DELAY}
 * (at-least-once commits only every 30 s). A task that fails drops it with its transaction and replays the input that
 * made it.
 * @param <K> the key that writes replace each other by
 * @param <W> a write
 */
public abstract class WriteBehind<K, W> extends PreCommitStore {

	/** Writes per task and commit that go straight out. */
	static final int WRITE_THROUGH = 1_000;

	/** Keys that wait at most, per task: a few MiB of heap at the sizes of the stages' entries. */
	static final int MAX_PENDING = 10_000;

	/** The longest a write waits when the task does not commit sooner. */
	static final Duration MAX_DELAY = Duration.ofSeconds(1);

	/** How often the wait is checked. */
	static final Duration CHECK_INTERVAL = Duration.ofMillis(100);

	private final Map<K, Pending<W>> pending = new HashMap<>();

	private long oldestPendingSince;

	private int writesSinceCommit;

	protected WriteBehind(String name) {
		super(name);
	}

	/** Connects to the processor that writes, from its {@code init}, and starts checking how long writes wait. */
	protected void start(ProcessorContext<?, ?> context) {
		connectTo(context);
		context.schedule(CHECK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, (now) -> {
			if (!this.pending.isEmpty() && now - this.oldestPendingSince >= MAX_DELAY.toMillis()) {
				whileKafkaAnswers(this::applyAll, () -> pending() + " writes to " + destination());
			}
		});
	}

	/** Makes the write now, or keeps it as the latest of its key until the commit. */
	protected void write(K key, W write) {
		// nothing waits before the last of these, so none of them can overtake a waiting write of its key
		if (++this.writesSinceCommit <= WRITE_THROUGH) {
			apply(key, write);
			return;
		}
		if (this.pending.isEmpty()) {
			this.oldestPendingSince = context().currentSystemTimeMs();
		}
		this.pending.put(key, new Pending<>(write, context().recordContext()));
		if (this.pending.size() >= MAX_PENDING) {
			applyAll();
		}
	}

	/** The write of {@code key} that waits, if one does. */
	protected @Nullable W waiting(K key) {
		Pending<W> write = this.pending.get(key);
		return (write != null) ? write.write() : null;
	}

	/** Makes one write, under the record context that is current: the one it was made under. */
	protected abstract void apply(K key, W write);

	/** Where the writes go, for the log. */
	protected abstract String destination();

	/** How many keys have writes waiting. */
	int pending() {
		return this.pending.size();
	}

	private void applyAll() {
		actAsProcessor(() -> {
			for (Map.Entry<K, Pending<W>> write : this.pending.entrySet()) {
				useRecordContext(write.getValue().record());
				apply(write.getKey(), write.getValue().write());
			}
		});
		// only now: a write that fails leaves all waiting, those made too, and making one again changes nothing
		this.pending.clear();
	}

	@Override
	public void flushCache() {
		// only a connected store has writes waiting
		if (!this.pending.isEmpty()) {
			applyAll();
		}
		this.writesSinceCommit = 0;
	}

	@Override
	public void clearCache() {
		this.pending.clear();
		this.writesSinceCommit = 0;
	}

	private record Pending<W>(W write, ProcessorRecordContext record) {
	}

}
