package io.valueguard.query;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.List;
import java.util.OptionalLong;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.owners.Owner;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * Answers a lookup wherever the key lives. Kafka Streams metadata names the partition and its active host; this
 * instance reads that exact partition if it is the active host, and otherwise forwards once to the host that is.
 * Through a rebalance, a restore or an unreachable host it retries within {@code valueguard.query.retry-budget},
 * then gives up with a 503. With {@code maxLag}, a standby or restoring store whose lag is at most that may answer.
 */
@Component
public class LookupRouter {

	private static final Serializer<String> KEYS = new StringSerializer();

	private static final StoreView<Owner, OwnerView> OWNERS_NOW = StoreView.OWNERS.uncached();

	private final StreamsClients clients;

	private final StoreLags lags;

	private final RemoteInstances remote;

	private final QueryProperties properties;

	private final @Nullable Cache<String, Answer<?>> remoteAnswers;

	private final LookupMetrics metrics;

	private final KnownAssignment assignment = new KnownAssignment();

	LookupRouter(StreamsClients clients, StoreLags lags, RemoteInstances remote, QueryProperties properties,
			LookupMetrics metrics) {
		this.clients = clients;
		this.metrics = metrics;
		this.lags = lags;
		this.remote = remote;
		this.properties = properties;
		this.remoteAnswers = properties.remoteCacheTtl().isZero() ? null
				: Caffeine.newBuilder()
					.expireAfterWrite(properties.remoteCacheTtl())
					.maximumSize(properties.remoteCacheSize())
					.build();
	}

	public Answer<BindingView> binding(String key, @Nullable Long maxLag, boolean forwarded) {
		return lookup(StoreView.BINDINGS, key, maxLag, forwarded);
	}

	public Answer<OwnerView> owner(String value, @Nullable Long maxLag, boolean forwarded) {
		return lookup(StoreView.OWNERS, value, maxLag, forwarded);
	}

	/** Who owns the value now, never from the cache of forwarded answers. */
	public Answer<OwnerView> ownerNow(String value) {
		return lookup(OWNERS_NOW, value, null, false);
	}

	/** The key's latest claim, bound or not. */
	public Answer<ClaimView> claim(String key, @Nullable Long maxLag, boolean forwarded) {
		return lookup(StoreView.CLAIMS, key, maxLag, forwarded);
	}

	/** A lookup another instance forwarded here: answered from this instance's stores, never forwarded again. */
	<T> Answer<T> forwarded(StoreView<?, T> view, String key, @Nullable Long maxLag) {
		return lookup(view, key, maxLag, true);
	}

	/**
	 * Looks up many keys at once: grouped by the instance that holds each key's partition, one request per other
	 * instance, all in parallel. What a forwarded batch answers holds only the keys this instance is active for (the
	 * asking instance looks the others up one by one); otherwise every key is in the answer, null when absent.
	 */
	public <V, T> Map<String, @Nullable T> batch(StoreView<V, T> view, List<String> keys, @Nullable Long maxLag,
			boolean forwarded) {
		Map<String, @Nullable T> answers = new LinkedHashMap<>();
		Map<HostInfo, List<String>> byHost = new LinkedHashMap<>();
		Map<String, Integer> partitions = new java.util.HashMap<>();
		List<String> unrouted = new ArrayList<>();
		KafkaStreams streams = null;
		try {
			streams = this.clients.queryable(view.store());
		}
		catch (InvalidStateStoreException ex) {
			// not running: nothing to group by; each key goes its own way below
		}
		for (String key : new java.util.LinkedHashSet<>(keys)) {
			KeyQueryMetadata metadata = null;
			try {
				metadata = (streams != null) ? streams.queryMetadataForKey(view.store(), key, KEYS) : null;
			}
			catch (IllegalStateException ex) {
				// the client stopped running meanwhile: this key, and the ones after it, go their own way below
			}
			if (metadata == null || metadata.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
				unrouted.add(key);
			}
			else {
				byHost.computeIfAbsent(metadata.activeHost(), (host) -> new ArrayList<>()).add(key);
				partitions.put(key, metadata.partition());
			}
		}
		List<String> local = byHost.getOrDefault(this.clients.self(), List.of());
		Map<HostInfo, CompletableFuture<Map<String, @Nullable T>>> remote = new LinkedHashMap<>();
		if (!forwarded) {
			byHost.forEach((host, hostKeys) -> {
				if (!host.equals(this.clients.self())) {
					remote.put(host, CompletableFuture.supplyAsync(
							() -> this.remote.batch(host, view, hostKeys, maxLag), this.remote.fanOut()));
				}
			});
		}
		// this instance's share: the partition is known already, read it straight away
		for (String key : local) {
			try {
				answers.put(key, read(streams, view, key, partitions.get(key), false));
			}
			catch (InvalidStateStoreException ex) {
				unrouted.add(key);
			}
		}
		if (forwarded) {
			return answers;
		}
		remote.forEach((host, future) -> {
			Map<String, @Nullable T> answered;
			try {
				answered = future.join();
			}
			catch (java.util.concurrent.CompletionException ex) {
				answered = Map.of();
			}
			for (String key : byHost.get(host)) {
				if (answered.containsKey(key)) {
					answers.put(key, answered.get(key));
				}
				else {
					unrouted.add(key);
				}
			}
		});
		// keys whose partition moved meanwhile, or that no instance could answer in one go: one by one, with retries
		for (String key : unrouted) {
			answers.put(key, lookup(view, key, maxLag, false).entry());
		}
		return answers;
	}

	private <V, T> Answer<T> lookup(StoreView<V, T> view, String key, @Nullable Long maxLag, boolean forwarded) {
		long start = System.nanoTime();
		try {
			Answer<T> answer = retrying(view, key, maxLag, forwarded);
			String route = answer.servedBy().equals(Hosts.name(this.clients.self())) ? "local" : "forwarded";
			this.metrics.record(view.store(), route, (answer.entry() != null) ? "found" : "not_found",
					System.nanoTime() - start);
			return answer;
		}
		catch (StoreUnavailableException ex) {
			this.metrics.record(view.store(), "none", "unavailable", System.nanoTime() - start);
			throw ex;
		}
	}

	private <V, T> Answer<T> retrying(StoreView<V, T> view, String key, @Nullable Long maxLag, boolean forwarded) {
		return RetryBudget.retry(this.properties, view.store(), () -> attempt(view, key, maxLag, forwarded));
	}

	/** One try: an answer, or null when nobody can answer right now. */
	private <V, T> @Nullable Answer<T> attempt(StoreView<V, T> view, String key, @Nullable Long maxLag,
			boolean forwarded) {
		KafkaStreams streams;
		KeyQueryMetadata metadata;
		try {
			streams = this.clients.queryable(view.store());
			try {
				metadata = streams.queryMetadataForKey(view.store(), key, KEYS);
			}
			catch (IllegalStateException ex) {
				// the client left RUNNING since the check: the same as not running, never a server error
				throw StreamsClients.notRunning(view.store(), streams.state());
			}
		}
		catch (InvalidStateStoreException ex) {
			return elsewhere(view, key, maxLag, forwarded, ex);
		}
		this.assignment.remember(view.store(), streams);
		if (metadata == null || metadata.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
			return null;
		}
		HostInfo self = this.clients.self();
		List<HostInfo> candidates = new ArrayList<>();
		candidates.add(metadata.activeHost());
		if (maxLag != null) {
			candidates.addAll(metadata.standbyHosts());
		}
		for (HostInfo host : candidates) {
			boolean active = host.equals(metadata.activeHost());
			if (host.equals(self)) {
				Answer<T> answer = local(streams, view, key, metadata.partition(), active, maxLag);
				if (answer != null) {
					return answer;
				}
			}
			else if (!forwarded) {
				try {
					return remote(host, view, key, maxLag);
				}
				catch (RemoteInstances.UnavailableException ex) {
					if (host == candidates.get(candidates.size() - 1)) {
						throw ex;
					}
				}
			}
		}
		return null;
	}

	/**
	 * This instance's client cannot route (not running): forward to where the key's partition was last seen, if
	 * another instance; that instance checks the partition itself, so a stale guess costs a retry, never a wrong
	 * answer.
	 */
	private <T> Answer<T> elsewhere(StoreView<?, T> view, String key, @Nullable Long maxLag, boolean forwarded,
			InvalidStateStoreException notRunning) {
		if (forwarded) {
			throw notRunning;
		}
		List<HostInfo> hosts = this.assignment.hostsOf(view.store(), key);
		List<HostInfo> others = hosts.stream()
			.limit((maxLag != null) ? hosts.size() : Math.min(1, hosts.size()))
			.filter((host) -> !host.equals(this.clients.self()))
			.toList();
		if (others.isEmpty()) {
			throw notRunning;
		}
		for (HostInfo host : others) {
			try {
				return remote(host, view, key, maxLag);
			}
			catch (RemoteInstances.UnavailableException ex) {
				if (host == others.get(others.size() - 1)) {
					throw ex;
				}
			}
		}
		throw notRunning;
	}

	private <V, T> @Nullable Answer<T> local(KafkaStreams streams, StoreView<V, T> view, String key, int partition,
			boolean active, @Nullable Long maxLag) {
		String self = Hosts.name(this.clients.self());
		if (active) {
			try {
				return new Answer<>(read(streams, view, key, partition, false), self, null);
			}
			catch (InvalidStateStoreException ex) {
				if (maxLag == null) {
					throw ex;
				}
				// restoring: a stale read may still be acceptable below
			}
		}
		if (maxLag == null) {
			return null;
		}
		OptionalLong lag = this.lags.lag(view.store(), partition);
		if (lag.isEmpty() || lag.getAsLong() > maxLag) {
			return null;
		}
		return new Answer<>(read(streams, view, key, partition, true), self, lag.getAsLong());
	}

	private static <V, T> @Nullable T read(KafkaStreams streams, StoreView<V, T> view, String key, int partition,
			boolean stale) {
		StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> parameters = StoreQueryParameters
			.fromNameAndType(view.store(), QueryableStoreTypes.<String, V>keyValueStore())
			.withPartition(partition);
		ReadOnlyKeyValueStore<String, V> store = streams.store(stale ? parameters.enableStaleStores() : parameters);
		V value = store.get(key);
		return (value != null) ? view.view().apply(key, value) : null;
	}

	@SuppressWarnings("unchecked")
	private <T> Answer<T> remote(HostInfo host, StoreView<?, T> view, String key, @Nullable Long maxLag) {
		if (this.remoteAnswers == null || !view.cacheable()) {
			return this.remote.lookup(host, view, key, maxLag);
		}
		String cacheKey = view.path() + '\u0000' + maxLag + '\u0000' + key;
		return (Answer<T>) this.remoteAnswers.get(cacheKey, (ignored) -> this.remote.lookup(host, view, key, maxLag));
	}

}
