package io.valueguard.owners;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.store.StateTable;
import org.jspecify.annotations.Nullable;

/**
 * Arbitration per value: keeps top(v), the greatest claim of each value over the whole history, and tells every
 * other claimant that it lost. Pure logic over a {@link StateTable}; the stream processor and the randomized tests
 * both drive it.
 */
public final class ValueStage {

	/** Where the evictions go: to the evicted key, on the partition that holds it. */
	@FunctionalInterface
	public interface Evictions {

		void evict(String key, Eviction eviction);

	}

	/** What a command did, for metrics and tests. */
	public enum Outcome {

		/** First claim of a free value, or the same key again at a later time. */
		OWNED,
		/** A greater claim took the value from another key. */
		TAKEN,
		/** The claim was less than top(v) and lost. */
		LOST,
		/** The top claim's key claimed the value again at the same time after releasing it. */
		REHELD,
		/** The claim equals the held top claim: nothing to do. */
		UNCHANGED,
		/** The top claim's key let go of the value. */
		RELEASED,
		/** A release of a claim that is no longer top(v). */
		STALE_RELEASE

	}

	private final StateTable<String, Owner> owners;

	private final Evictions evictions;

	public ValueStage(StateTable<String, Owner> owners, Evictions evictions) {
		this.owners = owners;
		this.evictions = evictions;
	}

	public Outcome apply(String value, OwnerCommand command) {
		return switch (command.type()) {
			case CLAIM -> claim(value, command);
			case RELEASE -> release(value, command);
		};
	}

	private Outcome claim(String value, OwnerCommand claim) {
		Owner top = this.owners.get(value);
		if (top == null) {
			this.owners.put(value, new Owner(claim.key(), claim.timestamp(), claim.keyPartition(), false));
			return Outcome.OWNED;
		}
		int order = ClaimOrder.compare(claim.timestamp(), claim.key(), top.timestamp(), top.key());
		if (order > 0) {
			boolean taken = top.holds() && !top.key().equals(claim.key());
			if (taken) {
				this.evictions.evict(top.key(), new Eviction(value, top.timestamp(), claim.key(), claim.timestamp(),
						Eviction.Reason.SUPERSEDED, top.keyPartition()));
			}
			this.owners.put(value, new Owner(claim.key(), claim.timestamp(), claim.keyPartition(), false));
			return taken ? Outcome.TAKEN : Outcome.OWNED;
		}
		if (order < 0) {
			this.evictions.evict(claim.key(), new Eviction(value, claim.timestamp(), top.key(), top.timestamp(),
					Eviction.Reason.LATE, claim.keyPartition()));
			return Outcome.LOST;
		}
		if (top.released()) {
			this.owners.put(value, top.withReleased(false));
			return Outcome.REHELD;
		}
		return Outcome.UNCHANGED;
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
