package io.valueguard.routing;

import org.jspecify.annotations.Nullable;

/**
 * The answer to one lookup: the entry, or null when there is none, the instance that read it, and, for a read from
 * a standby or restoring store allowed by {@code maxLag}, how many records that store was behind.
 */
public record Answer<T>(@Nullable T entry, String servedBy, @Nullable Long staleLag) {

	public boolean stale() {
		return this.staleLag != null;
	}

}
