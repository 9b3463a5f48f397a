package io.valueguard.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

import io.valueguard.config.QueryProperties;
import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.kafka.TopicProvisioner;
import io.valueguard.owners.ClaimOrder;
import io.valueguard.store.ActivePartitions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.jspecify.annotations.Nullable;

import org.springframework.core.ParameterizedTypeReference;
import org.springframework.stereotype.Component;

/**
 * Listings across instances: every instance pages through the store partitions it is active for, the instance asked
 * merges the pages in key order (UTF-8 byte order, as RocksDB keeps them) and checks that every partition answered
 * exactly once, so that each entry appears once. A listing during a rebalance retries within the budget.
 */
@Component
public class Listings {

	private static final ParameterizedTypeReference<LocalPage<BindingView>> BINDING_PAGE = new ParameterizedTypeReference<>() {
	};

	private static final ParameterizedTypeReference<LocalPage<OwnerView>> OWNER_PAGE = new ParameterizedTypeReference<>() {
	};

	private final StreamsClients clients;

	private final RemoteInstances remote;

	private final TopicProvisioner topics;

	private final QueryProperties properties;

	private final ActivePartitions active;

	Listings(StreamsClients clients, RemoteInstances remote, TopicProvisioner topics, QueryProperties properties,
			ActivePartitions active) {
		this.clients = clients;
		this.remote = remote;
		this.topics = topics;
		this.properties = properties;
		this.active = active;
	}

	/** A merged page and the instances whose stores it was read from. */
	public record Listing<T>(Page<T> page, List<String> servedBy) {

	}

	/** The page after {@code after}, merged from every instance. */
	@SuppressWarnings("unchecked")
	public <T> Listing<T> listing(Lookup<?, T> lookup, @Nullable String after, int limit) {
		if (lookup == Lookup.BINDINGS) {
			return (Listing<T>) page(Lookup.BINDINGS, after, limit, BINDING_PAGE, this.topics.claimsPartitions());
		}
		return (Listing<T>) page(Lookup.OWNERS, after, limit, OWNER_PAGE, this.topics.ownerCommandsPartitions());
	}

	private <V, T> Listing<T> page(Lookup<V, T> lookup, @Nullable String after, int limit,
			ParameterizedTypeReference<LocalPage<T>> type, int partitions) {
		return RetryBudget.retry(this.properties, lookup.store(),
				() -> merge(lookup, gather(lookup, after, limit, type), limit, partitions));
	}

	private <V, T> List<LocalPage<T>> gather(Lookup<V, T> lookup, @Nullable String after, int limit,
			ParameterizedTypeReference<LocalPage<T>> type) {
		KafkaStreams streams = this.clients.queryable(lookup.store());
		Set<HostInfo> hosts = new LinkedHashSet<>();
		hosts.add(this.clients.self());
		try {
			for (StreamsMetadata metadata : streams.streamsMetadataForStore(lookup.store())) {
				hosts.add(metadata.hostInfo());
			}
		}
		catch (IllegalStateException ex) {
			throw StreamsClients.notRunning(lookup.store(), streams.state());
		}
		List<CompletableFuture<LocalPage<T>>> pages = new ArrayList<>();
		for (HostInfo host : hosts) {
			pages.add(host.equals(this.clients.self())
					? CompletableFuture.supplyAsync(() -> local(lookup, after, limit), this.remote.fanOut())
					: CompletableFuture.supplyAsync(() -> this.remote.page(host, lookup, after, limit, type),
							this.remote.fanOut()));
		}
		return pages.stream().map(CompletableFuture::join).toList();
	}

	/** The merged page, or null when the pages do not cover every partition exactly once. */
	private <T> @Nullable Listing<T> merge(Lookup<?, T> lookup, List<LocalPage<T>> pages, int limit,
			int partitions) {
		Set<Integer> seen = new HashSet<>();
		for (LocalPage<T> page : pages) {
			for (int partition : page.partitions()) {
				if (!seen.add(partition)) {
					return null;
				}
			}
		}
		if (seen.size() != partitions) {
			return null;
		}
		List<T> items = new ArrayList<>();
		boolean more = false;
		for (LocalPage<T> page : pages) {
			items.addAll(page.items());
			more |= page.more();
		}
		items.sort(Comparator.comparing(lookup.keyOf(), ClaimOrder::compareKeys));
		if (items.size() > limit) {
			items = items.subList(0, limit);
			more = true;
		}
		String next = (more && !items.isEmpty()) ? lookup.keyOf().apply(items.get(items.size() - 1)) : null;
		List<String> servedBy = pages.stream().map(LocalPage::servedBy).sorted().toList();
		return new Listing<>(new Page<>(List.copyOf(items), next), servedBy);
	}

	/**
	 * This instance's share: entries after the cursor from every partition it is active for, read through a
	 * rebalance of the stream thread where the partition's task processes on ({@link Lookup#readActive}).
	 */
	<V, T> LocalPage<T> local(Lookup<V, T> lookup, @Nullable String after, int limit) {
		KafkaStreams streams = this.clients.forStore(lookup.store())
			.orElseThrow(() -> new InvalidStateStoreException("the " + lookup.store() + " stage has not started"));
		List<Integer> served = new ArrayList<>();
		List<T> items = new ArrayList<>();
		boolean more = false;
		// Kafka Streams' view of the thread's tasks changes only when the thread is RUNNING again; the tasks that
		// started processing since say so themselves
		Set<Integer> partitions = new TreeSet<>(StoreLags.activePartitions(streams));
		partitions.addAll(this.active.partitions(lookup.store()));
		for (int partition : partitions) {
			Share<T> share;
			try {
				share = lookup.readActive(streams, partition, this.active,
						(store) -> readAfter(lookup, store, after, limit));
			}
			catch (InvalidStateStoreException ex) {
				// restoring or migrating: leave it out, and the caller sees the partition missing
				continue;
			}
			items.addAll(share.items());
			more |= share.more();
			served.add(partition);
		}
		items.sort(Comparator.comparing(lookup.keyOf(), ClaimOrder::compareKeys));
		if (items.size() > limit) {
			items = new ArrayList<>(items.subList(0, limit));
			more = true;
		}
		return new LocalPage<>(Hosts.name(this.clients.self()), items, served, more);
	}

	/** One partition's entries after the cursor, and whether it has more. */
	private record Share<T>(List<T> items, boolean more) {

	}

	/**
	 * Up to {@code limit} entries after the cursor from one partition's store, whole or not at all: a store refused
	 * halfway through adds nothing to the page.
	 */
	private static <V, T> Share<T> readAfter(Lookup<V, T> lookup, ReadOnlyKeyValueStore<String, V> store,
			@Nullable String after, int limit) {
		List<T> items = new ArrayList<>();
		try (KeyValueIterator<String, V> entries = (after != null) ? store.range(after, null) : store.all()) {
			while (entries.hasNext()) {
				KeyValue<String, V> entry = entries.next();
				T item = entry.key.equals(after) ? null : lookup.view().apply(entry.key, entry.value);
				if (item == null) {
					continue;
				}
				if (items.size() == limit) {
					return new Share<>(items, true);
				}
				items.add(item);
			}
		}
		return new Share<>(items, false);
	}

}
