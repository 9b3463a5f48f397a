package io.valueguard.routing;

import java.util.List;

import org.jspecify.annotations.Nullable;

/** One page of a listing, in key order; {@code next} is the cursor for the following page, null on the last. */
public record Page<T>(List<T> items, @Nullable String next) {

}
