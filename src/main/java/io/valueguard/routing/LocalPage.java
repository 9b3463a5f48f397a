package io.valueguard.routing;

import java.util.List;

/**
 * What one instance holds of a listing: up to {@code limit} entries after the cursor, from the store partitions it
 * is active for (named, so the caller can check that every partition answered exactly once), and whether it has
 * more.
 */
public record LocalPage<T>(String servedBy, List<T> items, List<Integer> partitions, boolean more) {

}
