package io.valueguard.support;

import org.jspecify.annotations.Nullable;

/** One record on the claims topic: a claim of {@code value}, or a tombstone when it is null. */
public record InputRecord(String key, @Nullable String value, long timestamp) {

}
