package io.valueguard.routing;

import java.util.function.BiFunction;
import java.util.function.Function;

import io.valueguard.claims.KeyClaim;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.owners.Owner;
import io.valueguard.store.ActivePartitions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.jspecify.annotations.Nullable;

/**
 * One kind of lookup: which store it reads and how that store's entries look from outside. Only a bound key is a
 * binding and only a held top claim is an owner; the stores keep more (clocks, released claims) because they decide
 * future claims. {@code parameter} names the entry in the query form of the endpoints ({@code /api/bindings?key=});
 * {@code cacheable} lets {@code valueguard.query.remote-cache-ttl} keep forwarded answers of the lookup.
 */
public record Lookup<V, T>(String store, String path, String parameter, boolean cacheable, Class<T> type,
		BiFunction<String, V, @Nullable T> view, Function<T, String> keyOf) {

	public static final Lookup<KeyClaim, BindingView> BINDINGS = new Lookup<>(StreamsClients.BINDINGS, "/api/bindings",
			"key", true, BindingView.class,
			(key, claim) -> (claim.boundValue() != null) ? new BindingView(key, claim.boundValue(), claim.timestamp())
					: null,
			BindingView::key);

	/** The raw claim behind a binding, bound or not: what synchronous claims and {@code /api/claims} read. */
	public static final Lookup<KeyClaim, ClaimView> CLAIMS = new Lookup<>(StreamsClients.BINDINGS, "/api/claims",
			"key", false, ClaimView.class, (key, claim) -> new ClaimView(key, claim.value(), claim.timestamp(), claim.bound(),
					claim.pending(), claim.isErasing()),
			ClaimView::key);

	public static final Lookup<Owner, OwnerView> OWNERS = new Lookup<>(StreamsClients.OWNERS, "/api/owners",
			"value", true, OwnerView.class,
			(value, owner) -> owner.holds() ? new OwnerView(value, owner.key(), owner.timestamp()) : null,
			OwnerView::value);

	/** The lookup's name: the last segment of its path ({@code bindings}, {@code claims}, {@code owners}). */
	public String name() {
		return this.path.substring(this.path.lastIndexOf('/') + 1);
	}

	/** The same lookup, never answered from the cache of forwarded answers: for reads that must see the latest. */
	Lookup<V, T> uncached() {
		return withCache(false);
	}

	/** The same lookup, answered from the cache of forwarded answers where {@code remote-cache-ttl} keeps one. */
	Lookup<V, T> cached() {
		return withCache(true);
	}

	private Lookup<V, T> withCache(boolean cache) {
		return new Lookup<>(this.store, this.path, this.parameter, cache, this.type, this.view, this.keyOf);
	}

	/**
	 * The store of exactly one partition on this instance: an active one, or with {@code stale} also a standby or
	 * restoring one. Throws {@link org.apache.kafka.streams.errors.InvalidStateStoreException} when this instance
	 * cannot serve that partition now.
	 */
	ReadOnlyKeyValueStore<String, V> partition(KafkaStreams streams, int partition, boolean stale) {
		StoreQueryParameters<ReadOnlyKeyValueStore<String, V>> parameters = StoreQueryParameters
			.fromNameAndType(this.store, QueryableStoreTypes.<String, V>keyValueStore())
			.withPartition(partition);
		return streams.store(stale ? parameters.enableStaleStores() : parameters);
	}

	/**
	 * Reads the store of {@code partition} on the instance that is active for it, through a rebalance of its stream
	 * thread: Kafka Streams refuses every active store of a thread while the thread is in a rebalance, until each task
	 * it was given has restored and fetched its input's committed offsets, while the thread's other tasks process on.
	 * A refused partition whose task {@code active} says processes here is read through the query that also takes
	 * standbys: an instance never holds a standby beside its active, so that store is the active's. The store Kafka
	 * Streams returns finds the partition's task again at each read and refuses there, so {@code read} runs inside.
	 * Throws {@link org.apache.kafka.streams.errors.InvalidStateStoreException} when the partition's task does not
	 * process here.
	 */
	<R> R readActive(KafkaStreams streams, int partition, ActivePartitions active,
			Function<ReadOnlyKeyValueStore<String, V>, R> read) {
		try {
			return read.apply(partition(streams, partition, false));
		}
		catch (InvalidStateStoreException ex) {
			if (!active.processing(this.store, partition)) {
				throw ex;
			}
			return read.apply(partition(streams, partition, true));
		}
	}

	/** The entry as it looks from outside, or null when there is none or the store's entry shows nothing. */
	@Nullable T read(ReadOnlyKeyValueStore<String, V> store, String key) {
		return viewOf(key, store.get(key));
	}

	/** The store's entry {@code value} of {@code key} as it looks from outside; null when absent or showing nothing. */
	@Nullable T viewOf(String key, @Nullable V value) {
		return (value != null) ? this.view.apply(key, value) : null;
	}

}
