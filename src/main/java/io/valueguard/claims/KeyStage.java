package io.valueguard.claims;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.Verdict;
import io.valueguard.store.Retention;
import io.valueguard.store.StateTable;
import org.jspecify.annotations.Nullable;

/**
 * The key stage: applies each key's records in offset order, keeps the key's clock, and applies verdicts only to
 * the exact claim they name. Under latest-wins a claim is bound at once and taken back by an eviction; under
 * first-wins it waits for the value stage's grant, and only then is published. Pure logic over a {@link StateTable};
 * the stream processor and the randomized tests both drive it.
 */
public final class KeyStage {

	/** What the key stage emits. */
	public interface Effects {

		/** The key now holds the value (bindings topic). */
		void bound(String key, String value, long timestamp);

		/** The key holds nothing any more (bindings tombstone). */
		void unbound(String key, long timestamp);

		/** The key lost its value to another claim (evictions topic). */
		void evicted(EvictionEvent event);

		/** Tell the value stage about a claim or a release (owner-commands topic, keyed by value). */
		void command(String value, OwnerCommand command);

		/**
		 * Send an erasure to every partition of the value stage (owner-commands topic); returns how many partitions
		 * that is, each of which will report back once it has erased the key's name.
		 */
		int eraseEverywhere(OwnerCommand erasure);

	}

	/** What a record did, for metrics and tests. */
	public enum Outcome {

		/** A new claim: bound optimistically (latest-wins) or pending (first-wins), sent to the value stage. */
		CLAIMED,
		/** The same value at the same effective timestamp as the key's current claim: nothing changes. */
		DUPLICATE,
		/** A tombstone: the key let go of what it held. */
		RELEASED,
		/** A tombstone for a key that holds nothing. */
		NOTHING_TO_RELEASE,
		/**
		 * A conditional release or claim naming a claim the key no longer has: nothing changes, the key's clock
		 * included.
		 */
		CONDITION_NOT_MET,
		/** A claim more than the retention behind the stream time: refused, to the DLQ, nothing changes. */
		TOO_OLD,
		/** The key's current claim lost and the key is now unbound. */
		EVICTED,
		/** First-wins: the key's pending claim was granted and the key is now bound. */
		GRANTED,
		/** A verdict for a claim the key no longer has, or that is already decided. */
		STALE_EVICTION,
		/** An erasure: the key let go of what it held, and its name is being erased from the value stage. */
		ERASING,
		/** A claim of a key whose name is being erased: refused, to the DLQ, nothing changes. */
		BEING_ERASED,
		/** One value stage partition reported it erased the key's name; others have yet to. */
		ERASURE_REPORTED,
		/** The last value stage partition reported: the key's entry is deleted, its name is nowhere in the stores. */
		ERASED

	}

	private final StateTable<String, KeyClaim> claims;

	private final Effects effects;

	private final boolean firstWins;

	private final Retention retention;

	public KeyStage(StateTable<String, KeyClaim> claims, Effects effects) {
		this(claims, effects, ClaimPolicy.LATEST_WINS, Retention.OFF);
	}

	public KeyStage(StateTable<String, KeyClaim> claims, Effects effects, ClaimPolicy policy, Retention retention) {
		this.claims = claims;
		this.effects = effects;
		this.firstWins = policy == ClaimPolicy.FIRST_WINS;
		this.retention = retention;
	}

	/**
	 * Applies one input record at stream time {@link Long#MIN_VALUE}: for tests and callers without retention.
	 */
	public Outcome apply(String key, @Nullable String value, long recordTimestamp, int partition) {
		return apply(key, value, recordTimestamp, partition, Long.MIN_VALUE);
	}

	/**
	 * Applies one input record: a claim of {@code value}, or a tombstone when {@code value} is null.
	 * @param partition the claims partition this key lives on
	 * @param streamTime the stream time of the key's task, which retention measures a claim's age against
	 */
	public Outcome apply(String key, @Nullable String value, long recordTimestamp, int partition, long streamTime) {
		return apply(key, value, recordTimestamp, partition, streamTime, null);
	}

	/**
	 * As above; a record with a {@code condition} applies only if the key's latest claim is the one it names (a
	 * conditional release lets go of that claim, a conditional claim moves from it), and otherwise changes nothing
	 * ({@link Outcome#CONDITION_NOT_MET}).
	 */
	public Outcome apply(String key, @Nullable String value, long recordTimestamp, int partition, long streamTime,
			@Nullable ClaimCondition condition) {
		if (value != null && this.retention.expired(recordTimestamp, streamTime)) {
			// it might be ordered against an entry already forgotten; a tombstone never is, it only lets go
			return Outcome.TOO_OLD;
		}
		@Nullable KeyClaim current = this.claims.get(key);
		if (current != null && current.isErasing()) {
			// a claim now would be erased with the old ones, or outlive the erasure unnoticed: the DLQ keeps it
			return (value != null) ? Outcome.BEING_ERASED : Outcome.NOTHING_TO_RELEASE;
		}
		if (condition != null && !condition.isMetBy(current)) {
			// decided in the key's record order: a claim the key made after the one named, before this arrived, stays
			return Outcome.CONDITION_NOT_MET;
		}
		// A key's records never go back in time: its clock only moves forward.
		long timestamp = (current != null) ? Math.max(recordTimestamp, current.timestamp()) : recordTimestamp;
		return (value != null) ? claim(key, value, current, timestamp, partition)
				: release(key, current, timestamp, partition);
	}

	private Outcome claim(String key, String value, @Nullable KeyClaim current, long effective, int partition) {
		if (current != null && current.isClaim(value, effective) && (current.mayHold() || !this.firstWins)) {
			// under first-wins a refused claim is not queued: the same claim again asks anew
			return Outcome.DUPLICATE;
		}
		// A verdict names a claim by value and timestamp. Under first-wins it rules on one command, not on the claim
		// for all time (a refused claim may be granted when sent again), so no two claim commands of a key may share
		// a timestamp: a claim at the key's clock is stamped a millisecond after it.
		long timestamp = (this.firstWins && current != null && effective == current.timestamp()) ? effective + 1
				: effective;
		boolean sameValue = current != null && value.equals(current.value());
		if (current != null && current.mayHold() && !sameValue) {
			this.effects.command(current.value(), OwnerCommand.release(key, current.timestamp(), partition));
		}
		if (this.firstWins && !(sameValue && current.bound())) {
			// published once granted; a binding to another value ends now, as the release leaves
			this.claims.put(key, KeyClaim.awaitingGrant(value, timestamp));
			if (current != null && current.bound()) {
				this.effects.unbound(key, timestamp);
			}
		}
		else {
			// latest-wins, or a first-wins holder claiming its own value again: the value stage grants that always
			this.claims.put(key, new KeyClaim(value, timestamp, true));
			this.effects.bound(key, value, timestamp);
		}
		this.effects.command(value, OwnerCommand.claim(key, timestamp, partition));
		return Outcome.CLAIMED;
	}

	private Outcome release(String key, @Nullable KeyClaim current, long timestamp, int partition) {
		this.claims.put(key, new KeyClaim(null, timestamp, false));
		if (current == null || !current.mayHold()) {
			return Outcome.NOTHING_TO_RELEASE;
		}
		this.effects.command(current.value(), OwnerCommand.release(key, current.timestamp(), partition));
		if (current.bound()) {
			this.effects.unbound(key, timestamp);
		}
		return Outcome.RELEASED;
	}

	/**
	 * Applies an erasure request (a tombstone with the erase header): the key lets go of what it holds, as with a
	 * tombstone, and every value stage partition is told to erase the key's claims up to its clock. The entry stays,
	 * naming no value, until every partition has reported; then it is deleted. A second request meanwhile joins the
	 * first.
	 */
	public Outcome erase(String key, long recordTimestamp, int partition) {
		@Nullable KeyClaim current = this.claims.get(key);
		if (current != null && current.isErasing()) {
			return Outcome.ERASING;
		}
		long clock = (current != null) ? Math.max(recordTimestamp, current.timestamp()) : recordTimestamp;
		if (current != null && current.mayHold()) {
			this.effects.command(current.value(), OwnerCommand.release(key, current.timestamp(), partition));
			if (current.bound()) {
				this.effects.unbound(key, clock);
			}
		}
		// sent after the release, so each partition applies the release first (its commands travel in order)
		int reports = this.effects.eraseEverywhere(OwnerCommand.erase(key, clock, partition));
		this.claims.put(key, KeyClaim.erasing(clock, reports));
		return Outcome.ERASING;
	}

	/**
	 * True when the entry may be forgotten at {@code streamTime}: the key holds nothing and awaits nothing, and its
	 * clock is more than the retention behind, so every claim of the key still accepted is later than that clock.
	 */
	public boolean forgettable(KeyClaim entry, long streamTime) {
		// an erasure in progress stays until its last report, which deletes it
		return !entry.mayHold() && !entry.isErasing() && this.retention.expired(entry.timestamp(), streamTime);
	}

	/** Applies the value stage's verdict on one claim of {@code key}: it lost, or (first-wins) it was granted. */
	public Outcome verdict(String key, Verdict verdict, long now) {
		@Nullable KeyClaim current = this.claims.get(key);
		if (verdict.reason() == Verdict.Reason.ERASED) {
			return erasureReported(key, current, verdict.timestamp());
		}
		if (current == null || !current.mayHold() || !current.isClaim(verdict.value(), verdict.timestamp())) {
			return Outcome.STALE_EVICTION;
		}
		if (!verdict.evicts()) {
			if (!current.pending()) {
				return Outcome.STALE_EVICTION;
			}
			this.claims.put(key, new KeyClaim(current.value(), current.timestamp(), true));
			this.effects.bound(key, current.value(), current.timestamp());
			return Outcome.GRANTED;
		}
		this.claims.put(key, new KeyClaim(current.value(), current.timestamp(), false));
		if (current.bound()) {
			// a refused claim was never published: nothing to take back
			this.effects.unbound(key, Math.max(current.timestamp(), verdict.winnerTimestamp()));
		}
		this.effects.evicted(new EvictionEvent(key, verdict.value(), verdict.winnerKey(), verdict.timestamp(),
				verdict.winnerTimestamp(), now, verdict.reason()));
		return Outcome.EVICTED;
	}

	private Outcome erasureReported(String key, @Nullable KeyClaim current, long clock) {
		if (current == null || !current.isErasing() || current.timestamp() != clock) {
			// exactly-once delivers each report once, to the erasure that asked for it: this is not one of those
			return Outcome.STALE_EVICTION;
		}
		if (current.erasing() > 1) {
			this.claims.put(key, KeyClaim.erasing(clock, current.erasing() - 1));
			return Outcome.ERASURE_REPORTED;
		}
		this.claims.delete(key);
		return Outcome.ERASED;
	}

}
