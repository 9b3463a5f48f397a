package io.valueguard.claims;

import io.valueguard.messages.Verdict;

/**
 * One event on the evictions topic, keyed by the evicted key: {@code key} lost {@code value}, which it claimed at
 * {@code claimTimestamp}, to {@code evictedBy}'s claim at {@code evictedByTimestamp}. {@code evictionTimestamp} is
 * when the eviction took effect. {@code reason} is {@code SUPERSEDED} when the key held the value and a later claim
 * took it, {@code LATE} when its claim came after a greater one and never held the value.
 */
public record EvictionEvent(String key, String value, String evictedBy, long claimTimestamp,
		long evictedByTimestamp, long evictionTimestamp, Verdict.Reason reason) {

}
