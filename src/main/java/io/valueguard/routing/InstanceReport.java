package io.valueguard.routing;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One instance as it reports itself: its address, the state of each stage's streams client, and every store
 * partition it holds with its role and lag. {@code reachable} is false (and {@code error} says why) when the
 * instance asked could not get the report.
 */
public record InstanceReport(String host, boolean reachable, @Nullable String error, List<Client> streams,
		List<StorePartition> stores) {

	public record Client(String applicationId, String state) {

	}

	public record StorePartition(String store, int partition, String role, long offsetLag, long currentOffset,
			long endOffset) {

	}

}
