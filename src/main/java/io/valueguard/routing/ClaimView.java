package io.valueguard.routing;

import org.jspecify.annotations.Nullable;

/**
 * A key's latest claim as the key stage keeps it: the value its latest record claims (null after a release), that
 * claim's effective timestamp, and whether the key still holds the value (false once it lost it).
 */
public record ClaimView(String key, @Nullable String value, long timestamp, boolean bound) {

}
