package io.valueguard.owners;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.Verdict;
import io.valueguard.store.Retention;
import io.valueguard.store.MapTable;
import io.valueguard.store.StateTable;
import org.jspecify.annotations.Nullable;

/**
 * Arbitration per value. Under latest-wins it keeps top(v), the greatest claim of each value over the whole history,
 * and tells every other claimant that it lost. Under first-wins it keeps the claim that holds the value, grants a
 * claim of a free value and refuses every other key's claim while the value is held, in the order its commands
 * arrive. A claim is ruled by the rule of the key stage that sent it: this stage's own policy, except while a rolling
 * restart switches it. Pure logic over a {@link StateTable}; the stream processor and the randomized tests both drive
 * it.
 */
public final class ValueStage {

	/** Where the verdicts go: to the key they are about, on the partition that holds it. */
	@FunctionalInterface
	public interface Verdicts {

		void send(String key, Verdict verdict);

	}

	/** What a command did, for metrics and tests. */
	public enum Outcome {

		/** First claim of a free value, or the same key again at a later time. */
		OWNED,
		/** A greater claim took the value from another key. */
		TAKEN,
		/** The claim was less than top(v) and lost. */
		LOST,
		/** First-wins: another key holds the value, so the claim is refused. */
		REFUSED,
		/** Latest-wins with retention: the claim is more than the retention behind the stream time, refused. */
		TOO_OLD,
		/** The top claim's key claimed the value again at the same time after releasing it. */
		REHELD,
		/** The claim equals the held top claim: nothing to do. */
		UNCHANGED,
		/** The top claim's key let go of the value. */
		RELEASED,
		/** A release of a claim that is no longer top(v). */
		STALE_RELEASE,
		/** An erasure of a key's name, to be done by the task's next full pass over its store. */
		ERASURE_QUEUED

	}

	private final StateTable<String, Owner> owners;

	private final Verdicts verdicts;

	private final ClaimPolicy policy;

	private final Retention retention;

	public ValueStage(StateTable<String, Owner> owners, Verdicts verdicts) {
		this(owners, verdicts, ClaimPolicy.LATEST_WINS, Retention.OFF);
	}

	private final Erasures erasures;

	public ValueStage(StateTable<String, Owner> owners, Verdicts verdicts, ClaimPolicy policy, Retention retention) {
		this(owners, verdicts, policy, retention, new Erasures(new MapTable<>(), verdicts, policy));
	}

	/** @param erasures the task's erasures in progress, which its passes over the store carry out */
	public ValueStage(StateTable<String, Owner> owners, Verdicts verdicts, ClaimPolicy policy, Retention retention,
			Erasures erasures) {
		this.owners = owners;
		this.verdicts = verdicts;
		this.policy = policy;
		this.retention = retention;
		this.erasures = erasures;
	}

	/** The erasures this stage queues, for the passes over its store. */
	public Erasures erasures() {
		return this.erasures;
	}

	/** Applies a command at stream time {@link Long#MIN_VALUE}: for tests and callers without retention. */
	public Outcome apply(String value, OwnerCommand command) {
		return apply(value, command, Long.MIN_VALUE);
	}

	/** @param streamTime the stream time of the value's task, which retention measures a claim's age against */
	public Outcome apply(String value, OwnerCommand command, long streamTime) {
		return apply(value, command, streamTime, this.policy);
	}

	/**
	 * Applies a command of a key stage that runs {@code rule}, which rules its claims: the key stage awaits the
	 * verdicts that rule sends (a first-wins claim its grant), whatever this stage's own policy. The two differ only
	 * while a rolling restart switches the policy; either rule keeps one owner per value in the store.
	 */
	public Outcome apply(String value, OwnerCommand command, long streamTime, ClaimPolicy rule) {
		return switch (command.type()) {
			case CLAIM -> (rule == ClaimPolicy.FIRST_WINS) ? firstClaim(value, command)
					: claim(value, command, streamTime);
			case RELEASE -> release(value, command);
			case ERASE -> {
				this.erasures.queue(command.key(), command.timestamp(), command.keyPartition());
				yield Outcome.ERASURE_QUEUED;
			}
		};
	}

	/**
	 * True when the entry may be forgotten at {@code streamTime}: nobody holds the value, and its top claim is more
	 * than the retention behind, so every claim still accepted is greater than it (latest-wins); under first-wins a
	 * free value's entry decides nothing, and is forgotten by the same measure, so that both rules forget alike.
	 */
	public boolean forgettable(Owner entry, long streamTime) {
		return entry.released() && this.retention.expired(entry.timestamp(), streamTime);
	}

	/**
	 * First-wins: a free value, or one its key already holds, is granted (the holder's later claim of it takes the
	 * later timestamp, which its release will name); a value another key holds is refused.
	 */
	private Outcome firstClaim(String value, OwnerCommand claim) {
		@Nullable Owner holder = this.erasures.asRuledWith(this.owners.get(value));
		if (holder != null && holder.holds() && !holder.key().equals(claim.key())) {
			this.verdicts.send(claim.key(), new Verdict(value, claim.timestamp(), holder.key(), holder.timestamp(),
					Verdict.Reason.REFUSED, claim.keyPartition()));
			return Outcome.REFUSED;
		}
		this.owners.put(value, new Owner(claim.key(), claim.timestamp(), claim.keyPartition(), false));
		this.verdicts.send(claim.key(), Verdict.granted(value, claim.key(), claim.timestamp(), claim.keyPartition()));
		return Outcome.OWNED;
	}

	private Outcome claim(String value, OwnerCommand claim, long streamTime) {
		@Nullable Owner top = this.erasures.asRuledWith(this.owners.get(value));
		if (this.retention.expired(claim.timestamp(), streamTime)) {
			return refuseTooOld(value, claim, top, streamTime);
		}
		if (top == null) {
			this.owners.put(value, new Owner(claim.key(), claim.timestamp(), claim.keyPartition(), false));
			return Outcome.OWNED;
		}
		// an erased claim outranks every claim at its timestamp, as it did every claim it was ordered against
		int order = top.erased() ? ((claim.timestamp() > top.timestamp()) ? 1 : -1)
				: ClaimOrder.compare(claim.timestamp(), claim.key(), top.timestamp(), top.key());
		if (order > 0) {
			boolean taken = top.holds() && !top.key().equals(claim.key());
			if (taken) {
				this.verdicts.send(top.key(), new Verdict(value, top.timestamp(), claim.key(), claim.timestamp(),
						Verdict.Reason.SUPERSEDED, top.keyPartition()));
			}
			this.owners.put(value, new Owner(claim.key(), claim.timestamp(), claim.keyPartition(), false));
			return taken ? Outcome.TAKEN : Outcome.OWNED;
		}
		if (order < 0) {
			this.verdicts.send(claim.key(), new Verdict(value, claim.timestamp(), top.key(), top.timestamp(),
					Verdict.Reason.LATE, claim.keyPartition()));
			return Outcome.LOST;
		}
		if (top.released()) {
			this.owners.put(value, top.withReleased(false));
			return Outcome.REHELD;
		}
		return Outcome.UNCHANGED;
	}

	/** Refuses a claim whose top it should be ordered against may be forgotten, whatever it would have been. */
	private Outcome refuseTooOld(String value, OwnerCommand claim, @Nullable Owner top, long streamTime) {
		this.verdicts.send(claim.key(), Verdict.tooOld(value, claim.timestamp(), streamTime, claim.keyPartition()));
		if (top != null && top.holds() && top.key().equals(claim.key())) {
			// the key claimed its own value again, which sends no release: its earlier claim is gone with it
			this.owners.put(value, top.withReleased(true));
		}
		return Outcome.TOO_OLD;
	}

	private Outcome release(String value, OwnerCommand release) {
		@Nullable Owner top = this.owners.get(value);
		if (top != null && top.holds() && top.key().equals(release.key()) && top.timestamp() == release.timestamp()) {
			this.owners.put(value, top.withReleased(true));
			return Outcome.RELEASED;
		}
		return Outcome.STALE_RELEASE;
	}

}
