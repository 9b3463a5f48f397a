package io.valueguard.store;

/**
 * How many entries the write-behind tables of one stage remember together (the tables of all its tasks, on all its
 * threads), so that the heap they take is bounded however many partitions the instance holds
 * ({@code valueguard.store.recent-entries}). Each table remembers an equal share.
 */
final class RecentEntriesBudget {

	private final int limit;

	// guarded by this: tasks start and close on several threads, and the share must follow the last count
	private int tables;

	// read for every entry remembered, without a lock; changed only when a task starts or closes
	private volatile int share;

	/** @param limit how many entries all the tables together remember at most; 0 remembers nothing */
	RecentEntriesBudget(int limit) {
		this.limit = limit;
		this.share = limit;
	}

	/** A table of a task that processes records counts for a share from now on. */
	synchronized void join() {
		reshare(++this.tables);
	}

	/** A table's task closed. */
	synchronized void leave() {
		reshare(--this.tables);
	}

	private void reshare(int tables) {
		this.share = this.limit / Math.max(1, tables);
	}

	/** How many entries each table may remember now. */
	int share() {
		return this.share;
	}

}
