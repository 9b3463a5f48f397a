package io.valueguard.owners;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.Verdict;
import io.valueguard.store.StateTable;
import io.valueguard.store.Sweep;
import org.jspecify.annotations.Nullable;

/**
 * The erasures a value stage task has been asked for, and how its passes over the owners store carry them out
 * (docs/design.md, "Erasure"). An erasure is done once a pass has read every entry of the store since it arrived:
 * every entry whose claim is the erased key's, made at or before the key's clock at the erasure, has had the key's name
 * erased (latest-wins: the claim stays, naming no key; first-wins: a free value's entry decides nothing and goes). One
 * that arrives before a pass has read anything is done when that pass ends; one that arrives while a pass is under way
 * (with retention on, passes follow each other by the schedule) joins it, and is done once the next pass has come round
 * to where it joined. Then the key is told, and the erasure is forgotten. The erasures wait in a store of their own, so
 * that a task that fails or moves finishes them after its restore: its next pass starts over with all of them.
 */
public final class Erasures implements Sweep.Rewrite<Owner> {

	private final StateTable<String, Erasure> store;

	private final ValueStage.Verdicts verdicts;

	private final boolean firstWins;

	/** What the store holds, in memory: a task has few erasures at a time, and a pass reads this for every entry. */
	private final Map<String, Erasure> queued = new HashMap<>();

	/** The erasures the pass under way carries out from its first entry: done when it ends. */
	private Map<String, Erasure> passing = new HashMap<>();

	/** Erasures that joined a pass under way, by key: each done once a pass has come round to where it joined. */
	private final Map<String, Joined> joined = new HashMap<>();

	/** A pass is under way. */
	private boolean passUnderWay;

	/** The last entry the pass under way has read and rewritten, as UTF-8; null before its first. */
	private byte @Nullable [] passedTo;

	/**
	 * An erasure that joined a pass after it had read up to {@code after} (UTF-8): the entries from there on are
	 * rewritten by that pass, the rest by the next, once it is {@code comingRound}.
	 */
	private record Joined(Erasure erasure, byte[] after, boolean comingRound) {

	}

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
		if (!this.passUnderWay || this.passing.containsKey(key) || this.joined.containsKey(key)) {
			// the next pass carries it out whole
			return;
		}
		if (this.passedTo == null) {
			this.passing.put(key, erasure);
		}
		else {
			this.joined.put(key, new Joined(erasure, this.passedTo, false));
		}
	}

	@Override
	public boolean pending() {
		return !this.queued.isEmpty();
	}

	@Override
	public void passStarts() {
		this.passUnderWay = true;
		this.passedTo = null;
		this.joined.replaceAll((key, joined) -> new Joined(joined.erasure(), joined.after(), true));
		this.passing = new HashMap<>();
		this.queued.forEach((key, erasure) -> {
			Joined joined = this.joined.get(key);
			if (joined == null || !joined.erasure().equals(erasure)) {
				this.passing.put(key, erasure);
			}
		});
	}

	/**
	 * Rewrites by every erasure asked for, not only those this pass carries out: an entry is ruled with as erased from
	 * the erasure on ({@link #asRuledWith}), so it may be stored so at any time.
	 */
	@Override
	public @Nullable Owner rewrite(String value, Owner entry) {
		return erased(entry, this.queued);
	}

	@Override
	public void passedTo(String value) {
		this.passedTo = value.getBytes(StandardCharsets.UTF_8);
		if (this.joined.isEmpty()) {
			return;
		}
		byte[] passed = this.passedTo;
		finishJoined((joined) -> joined.comingRound() && Arrays.compareUnsigned(passed, joined.after()) >= 0);
	}

	/** Reports, and forgets, the erasures that joined a pass and have come round as {@code cameRound} says. */
	private void finishJoined(Predicate<Joined> cameRound) {
		List<String> finished = new ArrayList<>();
		this.joined.forEach((key, joined) -> {
			if (cameRound.test(joined)) {
				finished.add(key);
			}
		});
		for (String key : finished) {
			done(key, this.joined.remove(key).erasure());
		}
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
		this.passing.forEach(this::done);
		// came round past the store's last entry: the pass has read everything since they joined
		finishJoined(Joined::comingRound);
		this.passing = new HashMap<>();
		this.passUnderWay = false;
		this.passedTo = null;
	}

	private void done(String key, Erasure erasure) {
		if (erasure.equals(this.queued.get(key))) {
			this.queued.remove(key);
			this.store.delete(key);
		}
		this.verdicts.send(key, Verdict.erased(erasure.clock(), erasure.keyPartition()));
	}

}
