package io.valueguard.routing;

import org.jspecify.annotations.Nullable;

/**
 * A key's latest claim as the key stage keeps it: the value its latest record claims (null after a release), that
 * claim's effective timestamp, whether the key holds the value (false once it lost it, and under first-wins until it
 * is granted), whether the claim still waits for the value stage's ruling (first-wins only), and whether the key's
 * name is being erased (then it claims nothing; once the erasure is done the key has no claim at all).
 */
public record ClaimView(String key, @Nullable String value, long timestamp, boolean bound, boolean pending,
		boolean erasing) {

}
