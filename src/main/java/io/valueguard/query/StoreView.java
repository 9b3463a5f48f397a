package io.valueguard.query;

import java.util.function.BiFunction;
import java.util.function.Function;

import io.valueguard.claims.KeyClaim;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.owners.Owner;
import org.jspecify.annotations.Nullable;

/**
 * How a store's entries look from outside: only a bound key is a binding and only a held top claim is an owner; the
 * stores keep more (clocks, released claims) because they decide future claims. {@code parameter} names the entry in
 * the query form of the endpoints ({@code /api/bindings?key=}); {@code cacheable} lets
 * {@code valueguard.query.remote-cache-ttl} keep forwarded answers of the view.
 */
record StoreView<V, T>(String store, String path, String parameter, boolean cacheable, Class<T> type,
		BiFunction<String, V, @Nullable T> view, Function<T, String> keyOf) {

	static final StoreView<KeyClaim, BindingView> BINDINGS = new StoreView<>(StreamsClients.BINDINGS, "/api/bindings",
			"key", true, BindingView.class,
			(key, claim) -> (claim.boundValue() != null) ? new BindingView(key, claim.boundValue(), claim.timestamp())
					: null,
			BindingView::key);

	/** The raw claim behind a binding, bound or not: what synchronous claims and {@code /api/claims} read. */
	static final StoreView<KeyClaim, ClaimView> CLAIMS = new StoreView<>(StreamsClients.BINDINGS, "/api/claims",
			"key", false, ClaimView.class, (key, claim) -> new ClaimView(key, claim.value(), claim.timestamp(), claim.bound()),
			ClaimView::key);

	static final StoreView<Owner, OwnerView> OWNERS = new StoreView<>(StreamsClients.OWNERS, "/api/owners",
			"value", true, OwnerView.class,
			(value, owner) -> owner.holds() ? new OwnerView(value, owner.key(), owner.timestamp()) : null,
			OwnerView::value);

	/** The view's name: the last segment of its path ({@code bindings}, {@code claims}, {@code owners}). */
	String name() {
		return this.path.substring(this.path.lastIndexOf('/') + 1);
	}

	/** The same view, never answered from the cache of forwarded answers: for reads that must see the latest. */
	StoreView<V, T> uncached() {
		return new StoreView<>(this.store, this.path, this.parameter, false, this.type, this.view, this.keyOf);
	}

}
