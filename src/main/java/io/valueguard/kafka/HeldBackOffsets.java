package io.valueguard.kafka;

import java.time.Duration;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

import org.jspecify.annotations.Nullable;

/**
 * What the broker says of a stage's group while the stage is not RUNNING: which of this instance's input partitions
 * have committed offsets the group coordinator holds back as a transaction's (a read_committed consumer waits for them
 * before its task may start), and which open transactions could clear them.
 *
 * @param partitions this instance's input partitions whose committed offsets are held back; empty: none
 * @param offsetsPartition the partition of {@code __consumer_offsets} that holds the group; -1 if it could not be told
 * @param coordinator the broker that coordinates the group, as {@code id (host:port)}; null if it could not be told
 * @param openTransactions the open transactions that wrote to that partition (to any, if it could not be told)
 */
public record HeldBackOffsets(SortedSet<String> partitions, int offsetsPartition, @Nullable String coordinator,
		List<OpenTransaction> openTransactions) {

	/** Nothing held back. */
	public static HeldBackOffsets none() {
		return new HeldBackOffsets(new TreeSet<>(), -1, null, List.of());
	}

	/** An open transaction, as {@code kafka-transactions.sh describe} shows it. */
	public record OpenTransaction(String transactionalId, String state, long openMs, long timeoutMs) {

		@Override
		public String toString() {
			return this.transactionalId + " (" + this.state + ", open " + Duration.ofMillis(this.openMs).toSeconds()
					+ " s of its " + Duration.ofMillis(this.timeoutMs).toSeconds() + " s timeout)";
		}

	}

	public boolean any() {
		return !this.partitions.isEmpty();
	}

	/** Held back with no open transaction to clear them: they stay held back until the coordinator loads anew. */
	public boolean neverCleared() {
		return any() && this.openTransactions.isEmpty();
	}

	/** The log line's diagnosis and remedy, after "the stage has not been RUNNING for ...: ". */
	public String describe() {
		String holder = (this.offsetsPartition >= 0) ? "__consumer_offsets-" + this.offsetsPartition
				: "the group's partition of __consumer_offsets";
		String broker = (this.coordinator != null) ? "broker " + this.coordinator : "the broker that leads " + holder;
		String heldBack = "the group coordinator (" + broker + ") holds back the committed offsets of " + this.partitions
				+ " as a transaction's";
		if (neverCleared()) {
			return heldBack + ", and no transaction is open on " + holder + " to clear them: the coordinator serves the "
					+ "group from a partial load after a restart and will not clear them by itself (docs/reliability.md, "
					+ "\"After a broker restart, the group coordinator can serve a group from a partial load\"). "
					+ "Restart " + broker + ", or move the leadership of " + holder + " to another broker "
					+ "(kafka-leader-election); the stage goes on by itself once it can read its offsets";
		}
		return heldBack + " until " + ((this.openTransactions.size() == 1) ? "this open transaction ends: "
				: "one of these open transactions ends: ") + this.openTransactions
				+ ". The transaction coordinator aborts an open transaction at its timeout; one open past it is hanging: "
				+ "find and abort it with kafka-transactions.sh (find-hanging, abort)";
	}

}
