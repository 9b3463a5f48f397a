package io.valueguard.owners;

import java.util.HashMap;
import java.util.Map;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.Verdict;
import io.valueguard.store.StateTable;
import io.valueguard.store.Sweep;
import org.jspecify.annotations.Nullable;

/**
 * The erasures a value stage task has been asked for, and how its passes over the owners store carry them out
 * (docs/design.md, "Erasure"). An erasure waits for the next pass to start, and is done when that pass ends: every
 * entry whose claim is the erased key's, made at or before the key's clock at the erasure, has had the key's name
 * erased (latest-wins: the claim stays, naming no key; first-wins: a free value's entry decides nothing and goes).
 * Then the key is told, and the erasure is forgotten. The erasures wait in a store of their own, so that a task that
 * fails or moves finishes them after its restore: its next pass starts over with all of them.
 */
public final class Erasures implements Sweep.Rewrite<Owner> {

	private final StateTable<String, Erasure> store;

	private final ValueStage.Verdicts verdicts;

	private final boolean firstWins;

	/** What the store holds, in memory: a task has few erasures at a time, and a pass reads this for every entry. */
	private final Map<String, Erasure> queued = new HashMap<>();

	/** The erasures the pass under way carries out. */
	private Map<String, Erasure> passing = Map.of();

	/**
	 * @param store where the erasures wait; {@link #restore} loads what it held at the task's start
	 * @param verdicts where the reports go: to the erased key, on its partition
	 */
	public Erasures(StateTable<String, Erasure> store, ValueStage.Verdicts verdicts, ClaimPolicy policy) {
		this.store = store;
		this.verdicts = verdicts;
		this.firstWins = policy == ClaimPolicy.FIRST_WINS;
	}

	/** An erasure the store held at the task's start. */
	public void restore(String key, Erasure erasure) {
		this.queued.put(key, erasure);
	}

	/** Asks for {@code key}'s name to be erased, from every claim of it up to {@code clock}. */
	void queue(String key, long clock, int keyPartition) {
		Erasure erasure = new Erasure(clock, keyPartition);
		this.queued.put(key, erasure);
		this.store.put(key, erasure);
	}

	@Override
	public boolean pending() {
		return !this.queued.isEmpty();
	}

	@Override
	public void passStarts() {
		this.passing = Map.copyOf(this.queued);
	}

	@Override
	public @Nullable Owner rewrite(String value, Owner entry) {
		return erased(entry, this.passing);
	}

	/**
	 * The entry as the stage must rule with it: erased already if an erasure that covers it has been asked for,
	 * although the pass has yet to reach it. So every command after the erasure's in the partition sees it erased,
	 * whenever the pass comes, and the rulings do not depend on the pass's timing.
	 */
	@Nullable Owner asRuledWith(@Nullable Owner entry) {
		return (entry != null) ? erased(entry, this.queued) : null;
	}

	private @Nullable Owner erased(Owner entry, Map<String, Erasure> erasures) {
		if (erasures.isEmpty() || entry.erased()) {
			return entry;
		}
		Erasure erasure = erasures.get(entry.key());
		if (erasure == null || entry.timestamp() > erasure.clock()) {
			// a claim the key made after the erasure is a claim of its own
			return entry;
		}
		return this.firstWins ? null : entry.withKeyErased();
	}

	@Override
	public void passEnded() {
		for (Map.Entry<String, Erasure> done : this.passing.entrySet()) {
			if (done.getValue().equals(this.queued.get(done.getKey()))) {
				this.queued.remove(done.getKey());
				this.store.delete(done.getKey());
			}
			this.verdicts.send(done.getKey(), Verdict.erased(done.getValue().clock(), done.getValue().keyPartition()));
		}
		this.passing = Map.of();
	}

}
