package io.valueguard.routing;

import org.jspecify.annotations.Nullable;

/**
 * A key's latest claim as the key stage keeps it: the value its latest record claims (null after a release), that
 * claim's effective timestamp, whether the key holds the value (false once it lost it, and under first-wins until it
 * is granted), and whether the claim still waits for the value stage's ruling (first-wins only).
 */
public record ClaimView(String key, @Nullable String value, long timestamp, boolean bound, boolean pending) {

}
