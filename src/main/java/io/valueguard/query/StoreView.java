package io.valueguard.query;

import java.util.function.BiFunction;
import java.util.function.Function;

import io.valueguard.claims.KeyClaim;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.owners.Owner;
import org.jspecify.annotations.Nullable;

/**
 * How a store's entries look from outside: only a bound key is a binding and only a held top claim is an owner; the
 * stores keep more (clocks, released claims) because they decide future claims.
 */
record StoreView<V, T>(String store, String path, String parameter, Class<T> type, BiFunction<String, V, @Nullable T> view,
		Function<T, String> keyOf) {

	static final StoreView<KeyClaim, BindingView> BINDINGS = new StoreView<>(StreamsClients.BINDINGS, "/api/bindings", "key",
			BindingView.class,
			(key, claim) -> (claim.boundValue() != null) ? new BindingView(key, claim.boundValue(), claim.timestamp())
					: null,
			BindingView::key);

	static final StoreView<Owner, OwnerView> OWNERS = new StoreView<>(StreamsClients.OWNERS, "/api/owners", "value",
			OwnerView.class,
			(value, owner) -> owner.holds() ? new OwnerView(value, owner.key(), owner.timestamp()) : null,
			OwnerView::value);

}
