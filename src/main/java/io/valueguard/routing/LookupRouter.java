package io.valueguard.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.ConcurrentModificationException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.valueguard.config.QueryProperties;
import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.messages.KeyPartitions;
import io.valueguard.owners.Owner;
import io.valueguard.store.ActivePartitions;
import io.valueguard.store.TableEntries;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.HostInfo;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * Answers a lookup wherever the key lives. Kafka Streams metadata names the partition and its active host; this
 * instance reads that exact partition if it is the active host, and otherwise forwards once to the host that is.
 * Through a rebalance, a restore or an unreachable host it retries within {@code valueguard.query.retry-budget},
 * then gives up with a 503. With {@code maxLag}, a standby or restoring store whose lag is at most that may answer:
 * this instance's own first, instances that lately gave no answer at all ({@link SilentHosts}) last.
 */
@Component
public class LookupRouter {

	private static final Serializer<String> KEYS = new StringSerializer();

	private static final Lookup<Owner, OwnerView> OWNERS_NOW = Lookup.OWNERS.uncached();

	private final StreamsClients clients;

	private final StoreLags lags;

	private final RemoteInstances remote;

	private final QueryProperties properties;

	private final @Nullable Cache<String, Answer<?>> remoteAnswers;

	private final LookupMetrics metrics;

	private final ActivePartitions active;

	private final KnownAssignment assignment = new KnownAssignment();

	private final SilentHosts silent = new SilentHosts();

	LookupRouter(StreamsClients clients, StoreLags lags, RemoteInstances remote, QueryProperties properties,
			LookupMetrics metrics, ActivePartitions active) {
		this.clients = clients;
		this.metrics = metrics;
		this.active = active;
		this.lags = lags;
		this.remote = remote;
		this.properties = properties;
		this.remoteAnswers = properties.remoteCacheTtl().isZero() ? null
				: Caffeine.newBuilder()
					.expireAfterWrite(properties.remoteCacheTtl())
					.maximumSize(properties.remoteCacheSize())
					.build();
	}

	public Answer<BindingView> binding(String key, @Nullable Long maxLag) {
		return lookup(Lookup.BINDINGS, key, maxLag, false);
	}

	public Answer<OwnerView> owner(String value, @Nullable Long maxLag) {
		return lookup(Lookup.OWNERS, value, maxLag, false);
	}

	/** Who owns the value now, never from the cache of forwarded answers. */
	public Answer<OwnerView> ownerNow(String value) {
		return lookup(OWNERS_NOW, value, null, false);
	}

	/**
	 * The keys' latest claims, bound or not, read together: this instance's share from its stores, one request per
	 * other instance for theirs. Every key is in the answer, null when it has no claim.
	 */
	public Map<String, @Nullable ClaimView> claims(List<String> keys) {
		return batch(Lookup.CLAIMS, keys, null);
	}

	/** Who holds each value now, read together as {@link #claims} reads claims, never from the cache. */
	public Map<String, @Nullable OwnerView> ownersNow(List<String> values) {
		return batch(OWNERS_NOW, values, null);
	}

	/** The key's latest claim, bound or not. */
	public Answer<ClaimView> claim(String key, @Nullable Long maxLag) {
		return lookup(Lookup.CLAIMS, key, maxLag, false);
	}

	/** Any lookup, wherever its key lives. */
	<T> Answer<T> lookup(Lookup<?, T> lookup, String key, @Nullable Long maxLag) {
		return lookup(lookup, key, maxLag, false);
	}

	/** A lookup another instance forwarded here: answered from this instance's stores, never forwarded again. */
	<T> Answer<T> forwarded(Lookup<?, T> lookup, String key, @Nullable Long maxLag) {
		return lookup(lookup, key, maxLag, true);
	}

	/**
	 * Looks up many keys at once: grouped by the instance that holds each key's partition, one request per other
	 * instance, all in parallel. Every key is in the answer, null when absent.
	 */
	public <V, T> Map<String, @Nullable T> batch(Lookup<V, T> lookup, List<String> keys, @Nullable Long maxLag) {
		Routes routes = route(lookup, keys);
		Map<HostInfo, CompletableFuture<Map<String, @Nullable T>>> asked = askOthers(lookup, routes);
		Map<String, @Nullable T> answers = readLocal(lookup, routes);
		collect(asked, routes, answers);
		// keys whose partition moved meanwhile, or that no instance could answer in one go: one by one, with retries
		for (String key : routes.unrouted) {
			answers.put(key, lookup(lookup, key, maxLag, false).entry());
		}
		return answers;
	}

	/**
	 * This instance's share of a batch another instance forwarded here: only the keys whose partition this instance
	 * is active for (the asking instance looks the others up one by one).
	 */
	<V, T> Map<String, @Nullable T> localShare(Lookup<V, T> lookup, List<String> keys) {
		return readLocal(lookup, route(lookup, keys));
	}

	/** Where each key of a batch goes: the active host of its partition, or nowhere yet ({@code unrouted}). */
	private static final class Routes {

		private final @Nullable KafkaStreams streams;

		private final Map<HostInfo, List<String>> byHost = new LinkedHashMap<>();

		private final Map<String, Integer> partitions = new HashMap<>();

		private final List<String> unrouted = new ArrayList<>();

		private Routes(@Nullable KafkaStreams streams) {
			this.streams = streams;
		}

	}

	private Routes route(Lookup<?, ?> lookup, List<String> keys) {
		KafkaStreams streams = null;
		try {
			streams = this.clients.queryable(lookup.store());
		}
		catch (InvalidStateStoreException ex) {
			// not running: nothing to group by; each key goes its own way
		}
		Routes routes = new Routes(streams);
		BatchPartitioner partitioner = new BatchPartitioner();
		for (String key : new LinkedHashSet<>(keys)) {
			KeyQueryMetadata metadata = partitioner.known(key);
			try {
				if (metadata == null && streams != null) {
					metadata = partitioner.remember(streams.queryMetadataForKey(lookup.store(), key, partitioner));
				}
			}
			catch (IllegalStateException ex) {
				// the client stopped running meanwhile: this key goes its own way, as do the later ones of partitions
				// not asked about yet (the others follow the answer of a moment ago; whoever they go to checks)
			}
			if (metadata == null || metadata.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
				routes.unrouted.add(key);
			}
			else {
				routes.byHost.computeIfAbsent(metadata.activeHost(), (host) -> new ArrayList<>()).add(key);
				routes.partitions.put(key, metadata.partition());
			}
		}
		return routes;
	}

	/**
	 * Kafka's default partitioner for a batch's keys, which remembers what Kafka Streams said of each partition: Kafka
	 * Streams works a key's metadata out from every instance's partitions again for every key (copies of their sets,
	 * under its lock), which was the largest part of a batch's cost once its reads were one query. The partition count
	 * is the one Kafka Streams passes the partitioner, so a key's partition is computed exactly as it would compute it,
	 * and Kafka Streams is asked once per partition of the batch.
	 */
	private static final class BatchPartitioner implements StreamPartitioner<String, Void> {

		private final Map<Integer, KeyQueryMetadata> byPartition = new HashMap<>();

		private int partitions;

		@Override
		public Optional<Set<Integer>> partitions(String topic, String key, Void value, int numPartitions) {
			this.partitions = numPartitions;
			return Optional.of(Set.of(KeyPartitions.of(key, numPartitions)));
		}

		/** What Kafka Streams said of the key's partition earlier in the batch; null when it was not asked yet. */
		@Nullable KeyQueryMetadata known(String key) {
			return (this.partitions > 0) ? this.byPartition.get(KeyPartitions.of(key, this.partitions)) : null;
		}

		/** Keeps an answer of Kafka Streams for the keys after it, unless it had none (a rebalance): then asks again. */
		@Nullable KeyQueryMetadata remember(@Nullable KeyQueryMetadata metadata) {
			if (metadata != null && !metadata.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
				this.byPartition.put(metadata.partition(), metadata);
			}
			return metadata;
		}

	}

	private <T> Map<HostInfo, CompletableFuture<Map<String, @Nullable T>>> askOthers(Lookup<?, T> lookup,
			Routes routes) {
		Map<HostInfo, CompletableFuture<Map<String, @Nullable T>>> asked = new LinkedHashMap<>();
		routes.byHost.forEach((host, keys) -> {
			if (!host.equals(this.clients.self())) {
				asked.put(host, CompletableFuture.supplyAsync(() -> this.remote.batch(host, lookup, keys),
						this.remote.fanOut()));
			}
		});
		return asked;
	}

	/**
	 * This instance's share: the partitions are known already, so their tables are read straight away, in one query
	 * for all of them. The keys of a partition that this instance cannot serve now join the unrouted ones.
	 */
	private <V, T> Map<String, @Nullable T> readLocal(Lookup<V, T> lookup, Routes routes) {
		Map<String, @Nullable T> answers = new LinkedHashMap<>();
		Map<Integer, List<String>> local = new HashMap<>();
		for (String key : routes.byHost.getOrDefault(this.clients.self(), List.of())) {
			local.computeIfAbsent(routes.partitions.get(key), (partition) -> new ArrayList<>()).add(key);
		}
		if (local.isEmpty()) {
			return answers;
		}
		Map<Integer, QueryResult<Map<String, V>>> read;
		try {
			read = new HashMap<>(routes.streams.query(new TableEntries<String, V>(local).of(lookup.store()))
				.getPartitionResults());
			Map<Integer, List<String>> through = processingButRefused(lookup, local, read);
			if (!through.isEmpty()) {
				read.putAll(routes.streams.query(new TableEntries<String, V>(through).ofAnyTask(lookup.store()))
					.getPartitionResults());
			}
		}
		catch (InvalidStateStoreException | ConcurrentModificationException ex) {
			// the client stopped running since the keys were routed, or replaced a failed stream thread while the
			// query went through its threads (a list it walks without its lock)
			local.values().forEach(routes.unrouted::addAll);
			return answers;
		}
		local.forEach((partition, keys) -> {
			QueryResult<Map<String, V>> result = read.get(partition);
			if (result == null || result.isFailure()) {
				routes.unrouted.addAll(keys);
				return;
			}
			keys.forEach((key) -> answers.put(key, lookup.viewOf(key, result.getResult().get(key))));
		});
		return answers;
	}

	/**
	 * The keys of the partitions Kafka Streams refused although their task processes here: its stream thread is in a
	 * rebalance (see {@link Lookup#readActive}), and the query that also takes standbys reads the active's table.
	 */
	private Map<Integer, List<String>> processingButRefused(Lookup<?, ?> lookup, Map<Integer, List<String>> local,
			Map<Integer, ? extends QueryResult<?>> read) {
		Map<Integer, List<String>> through = new HashMap<>();
		local.forEach((partition, keys) -> {
			QueryResult<?> result = read.get(partition);
			if ((result == null || result.isFailure()) && this.active.processing(lookup.store(), partition)) {
				through.put(partition, keys);
			}
		});
		return through;
	}

	/** What the other instances answered; the keys they did not answer for join the unrouted ones. */
	private static <T> void collect(Map<HostInfo, CompletableFuture<Map<String, @Nullable T>>> asked, Routes routes,
			Map<String, @Nullable T> answers) {
		asked.forEach((host, future) -> {
			Map<String, @Nullable T> answered;
			try {
				answered = future.join();
			}
			catch (CompletionException ex) {
				answered = Map.of();
			}
			for (String key : routes.byHost.get(host)) {
				if (answered.containsKey(key)) {
					answers.put(key, answered.get(key));
				}
				else {
					routes.unrouted.add(key);
				}
			}
		});
	}

	private <V, T> Answer<T> lookup(Lookup<V, T> lookup, String key, @Nullable Long maxLag, boolean forwarded) {
		long start = System.nanoTime();
		try {
			Answer<T> answer = forwarded ? once(lookup, key, maxLag) : retrying(lookup, key, maxLag);
			String route = answer.servedBy().equals(Hosts.name(this.clients.self())) ? "local" : "forwarded";
			this.metrics.record(lookup.store(), route, (answer.entry() != null) ? "found" : "not_found",
					System.nanoTime() - start);
			return answer;
		}
		catch (StoreUnavailableException ex) {
			this.metrics.record(lookup.store(), "none", "unavailable", System.nanoTime() - start);
			throw ex;
		}
	}

	private <V, T> Answer<T> retrying(Lookup<V, T> lookup, String key, @Nullable Long maxLag) {
		return RetryBudget.retryUntil(this.properties, lookup.store(),
				(deadline) -> attempt(lookup, key, maxLag, false, deadline));
	}

	/**
	 * A lookup another instance forwarded here: one try, and a 503 at once when this instance cannot answer for the
	 * key's partition now. The asking instance retries within its own budget, with fresh metadata that may send it
	 * elsewhere, and waits for this answer no longer than its read timeout, which retries here could outlast: it
	 * would then take a live instance for a silent one.
	 */
	private <V, T> Answer<T> once(Lookup<V, T> lookup, String key, @Nullable Long maxLag) {
		String problem = "this instance holds no store of the key's partition that may answer";
		try {
			Answer<T> answer = attempt(lookup, key, maxLag, true, System.nanoTime());
			if (answer != null) {
				return answer;
			}
		}
		catch (InvalidStateStoreException ex) {
			problem = ex.getMessage();
		}
		throw new StoreUnavailableException(lookup.store(), problem);
	}

	/** One try, within the budget that ends at {@code deadline}: an answer, or null when nobody can answer now. */
	private <V, T> @Nullable Answer<T> attempt(Lookup<V, T> lookup, String key, @Nullable Long maxLag,
			boolean forwarded, long deadline) {
		KafkaStreams streams;
		KeyQueryMetadata metadata;
		try {
			streams = this.clients.queryable(lookup.store());
			metadata = metadataOf(streams, lookup, key);
		}
		catch (InvalidStateStoreException notRunning) {
			return elsewhere(lookup, key, maxLag, forwarded, notRunning, deadline);
		}
		this.assignment.remember(lookup.store(), streams);
		if (metadata == null || metadata.equals(KeyQueryMetadata.NOT_AVAILABLE)) {
			return null;
		}
		List<HostInfo> candidates = candidates(metadata, maxLag);
		for (HostInfo host : candidates) {
			if (host.equals(this.clients.self())) {
				Answer<T> answer = local(streams, lookup, key, metadata.partition(),
						host.equals(metadata.activeHost()), maxLag);
				if (answer != null) {
					return answer;
				}
			}
			else if (!forwarded) {
				try {
					return remote(host, lookup, key, maxLag, deadline);
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

	private static @Nullable KeyQueryMetadata metadataOf(KafkaStreams streams, Lookup<?, ?> lookup, String key) {
		try {
			return streams.queryMetadataForKey(lookup.store(), key, KEYS);
		}
		catch (IllegalStateException ex) {
			// the client left RUNNING since the check: the same as not running, never a server error
			throw StreamsClients.notRunning(lookup.store(), streams.state());
		}
	}

	/**
	 * The hosts that may answer, in the order to ask them: without {@code maxLag} the active one alone. With it, this
	 * instance first if it holds a replica (a read within the lag the caller allows needs no hop), then the active,
	 * then the other standbys, and those that lately gave no answer at all last.
	 */
	private List<HostInfo> candidates(KeyQueryMetadata metadata, @Nullable Long maxLag) {
		if (maxLag == null) {
			return List.of(metadata.activeHost());
		}
		HostInfo self = this.clients.self();
		List<HostInfo> others = new ArrayList<>();
		others.add(metadata.activeHost());
		others.addAll(metadata.standbyHosts());
		boolean local = others.remove(self);
		List<HostInfo> candidates = new ArrayList<>(others.size() + 1);
		if (local) {
			candidates.add(self);
		}
		candidates.addAll(this.silent.lastIfSilent(others, System.nanoTime()));
		return candidates;
	}

	/**
	 * This instance's client cannot route (not running): forward to where the key's partition was last seen, if
	 * another instance; that instance checks the partition itself, so a stale guess costs a retry, never a wrong
	 * answer.
	 */
	private <T> Answer<T> elsewhere(Lookup<?, T> lookup, String key, @Nullable Long maxLag, boolean forwarded,
			InvalidStateStoreException notRunning, long deadline) {
		if (forwarded) {
			throw notRunning;
		}
		List<HostInfo> hosts = this.assignment.hostsOf(lookup.store(), key);
		List<HostInfo> others = this.silent.lastIfSilent(hosts.stream()
			.limit((maxLag != null) ? hosts.size() : Math.min(1, hosts.size()))
			.filter((host) -> !host.equals(this.clients.self()))
			.toList(), System.nanoTime());
		if (others.isEmpty()) {
			throw notRunning;
		}
		for (HostInfo host : others) {
			try {
				return remote(host, lookup, key, maxLag, deadline);
			}
			catch (RemoteInstances.UnavailableException ex) {
				if (host == others.get(others.size() - 1)) {
					throw ex;
				}
			}
		}
		throw notRunning;
	}

	private <V, T> @Nullable Answer<T> local(KafkaStreams streams, Lookup<V, T> lookup, String key, int partition,
			boolean active, @Nullable Long maxLag) {
		String self = Hosts.name(this.clients.self());
		if (active) {
			try {
				return new Answer<>(lookup.readActive(streams, partition, this.active, (store) -> lookup.read(store, key)),
						self, null);
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
		OptionalLong lag = this.lags.lag(lookup.store(), partition);
		if (lag.isEmpty() || lag.getAsLong() > maxLag) {
			return null;
		}
		return new Answer<>(lookup.read(lookup.partition(streams, partition, true), key), self, lag.getAsLong());
	}

	@SuppressWarnings("unchecked")
	private <T> Answer<T> remote(HostInfo host, Lookup<?, T> lookup, String key, @Nullable Long maxLag,
			long deadline) {
		if (this.remoteAnswers == null || !lookup.cacheable()) {
			return ask(host, lookup, key, maxLag, deadline);
		}
		String cacheKey = lookup.path() + '\u0000' + maxLag + '\u0000' + key;
		return (Answer<T>) this.remoteAnswers.get(cacheKey, (ignored) -> ask(host, lookup, key, maxLag, deadline));
	}

	/**
	 * Forwards one lookup, waiting for its answer no longer than the budget has left, and notes whether the host
	 * answered at all. A host that was silent lately is waited for no longer than the connect timeout: it is asked
	 * only when no other could answer, and an instance that runs again answers a lookup in milliseconds, while a
	 * frozen one would keep the caller the whole read timeout on every try.
	 */
	private <T> Answer<T> ask(HostInfo host, Lookup<?, T> lookup, String key, @Nullable Long maxLag, long deadline) {
		long now = System.nanoTime();
		Duration wait = Duration.ofNanos(deadline - now);
		if (this.silent.isSilent(host, now) && this.properties.connectTimeout().compareTo(wait) < 0) {
			wait = this.properties.connectTimeout();
		}
		boolean cut = wait.compareTo(this.properties.readTimeout()) < 0;
		try {
			Answer<T> answer = this.remote.lookup(host, lookup, key, maxLag, cut ? wait : null);
			this.silent.answered(host);
			return answer;
		}
		catch (RemoteInstances.UnavailableException ex) {
			if (!ex.silent()) {
				// it answered, if not helpfully (a 503 while it restores): it is not frozen
				this.silent.answered(host);
			}
			else if (!(cut && ex.timedOut())) {
				this.silent.silent(host, System.nanoTime());
			}
			// a wait cut short says nothing of the host either way: only a whole read timeout counts
			throw ex;
		}
	}

}
