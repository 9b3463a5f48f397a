package io.valueguard.store;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * How far behind its task's stream time an entry or a claim may be before it no longer counts
 * ({@code valueguard.retention}): entries that hold nothing are forgotten once they are that old, and claims that old
 * are refused, so that a forgotten entry never decides an accepted claim (docs/design.md, "Retention").
 * @param millis the retention; {@link Long#MAX_VALUE} when it is off
 */
public record Retention(long millis) {

	/** No retention: nothing is ever forgotten or refused for its age. */
	public static final Retention OFF = new Retention(Long.MAX_VALUE);

	public static Retention of(@Nullable Duration retention) {
		return (retention != null) ? new Retention(retention.toMillis()) : OFF;
	}

	public boolean enabled() {
		return this.millis != Long.MAX_VALUE;
	}

	/** True when {@code timestamp} is more than the retention behind {@code streamTime}. */
	public boolean expired(long timestamp, long streamTime) {
		// compared as a difference, which cannot overflow for the timestamps Kafka carries (0 and up)
		return enabled() && streamTime > timestamp && streamTime - timestamp > this.millis;
	}

}
