package io.valueguard.claims;

import io.valueguard.messages.Eviction;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.store.StateTable;
import org.jspecify.annotations.Nullable;

/**
 * The key stage: applies each key's records in offset order, keeps the key's clock, and applies evictions only to
 * the exact claim they name. Pure logic over a {@link StateTable}; the stream processor and the randomized tests both
 * drive it.
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

	}

	/** What a record did, for metrics and tests. */
	public enum Outcome {

		/** A new claim: bound optimistically, sent to the value stage for arbitration. */
		CLAIMED,
		/** The same value at the same effective timestamp as the key's current claim: nothing changes. */
		DUPLICATE,
		/** A tombstone: the key let go of what it held. */
		RELEASED,
		/** A tombstone for a key that holds nothing. */
		NOTHING_TO_RELEASE,
		/** The key's current claim lost and the key is now unbound. */
		EVICTED,
		/** An eviction for a claim the key no longer has, or already lost. */
		STALE_EVICTION

	}

	private final StateTable<String, KeyClaim> claims;

	private final Effects effects;

	public KeyStage(StateTable<String, KeyClaim> claims, Effects effects) {
		this.claims = claims;
		this.effects = effects;
	}

	/**
	 * Applies one input record: a claim of {@code value}, or a tombstone when {@code value} is null.
	 * @param partition the claims partition this key lives on
	 */
	public Outcome apply(String key, @Nullable String value, long recordTimestamp, int partition) {
		@Nullable KeyClaim current = this.claims.get(key);
		// A key's records never go back in time: its clock only moves forward.
		long timestamp = (current != null) ? Math.max(recordTimestamp, current.timestamp()) : recordTimestamp;
		if (value == null) {
			return release(key, current, timestamp, partition);
		}
		if (current != null && current.isClaim(value, timestamp)) {
			return Outcome.DUPLICATE;
		}
		if (current != null && current.bound() && !value.equals(current.value())) {
			this.effects.command(current.value(), OwnerCommand.release(key, current.timestamp(), partition));
		}
		this.claims.put(key, new KeyClaim(value, timestamp, true));
		this.effects.bound(key, value, timestamp);
		this.effects.command(value, OwnerCommand.claim(key, timestamp, partition));
		return Outcome.CLAIMED;
	}

	private Outcome release(String key, @Nullable KeyClaim current, long timestamp, int partition) {
		this.claims.put(key, new KeyClaim(null, timestamp, false));
		if (current == null || current.boundValue() == null) {
			return Outcome.NOTHING_TO_RELEASE;
		}
		this.effects.command(current.value(), OwnerCommand.release(key, current.timestamp(), partition));
		this.effects.unbound(key, timestamp);
		return Outcome.RELEASED;
	}

	/** Applies the value stage's verdict that one claim of {@code key} lost. */
	public Outcome evict(String key, Eviction eviction, long now) {
		@Nullable KeyClaim current = this.claims.get(key);
		if (current == null || !current.bound() || !current.isClaim(eviction.value(), eviction.timestamp())) {
			return Outcome.STALE_EVICTION;
		}
		this.claims.put(key, new KeyClaim(current.value(), current.timestamp(), false));
		this.effects.unbound(key, Math.max(current.timestamp(), eviction.winnerTimestamp()));
		this.effects.evicted(new EvictionEvent(key, eviction.value(), eviction.winnerKey(), eviction.timestamp(),
				eviction.winnerTimestamp(), now, eviction.reason()));
		return Outcome.EVICTED;
	}

}
