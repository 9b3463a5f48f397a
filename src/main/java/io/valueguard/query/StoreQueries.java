package io.valueguard.query;

import java.util.Optional;

import io.valueguard.claims.KeyClaim;
import io.valueguard.owners.Owner;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

import org.springframework.cloud.stream.binder.kafka.streams.InteractiveQueryService;
import org.springframework.stereotype.Component;

/**
 * Reads the two stores through Kafka Streams interactive queries. Only a bound key is a binding and only a held top
 * claim is an owner: the stores keep more (clocks, released claims) to decide future claims correctly.
 */
@Component
public class StoreQueries {

	static final String BINDINGS_STORE = "bindings";

	static final String OWNERS_STORE = "owners";

	private final InteractiveQueryService queries;

	public StoreQueries(InteractiveQueryService queries) {
		this.queries = queries;
	}

	public Optional<BindingView> binding(String key) {
		KeyClaim claim = store(BINDINGS_STORE, KeyClaim.class).get(key);
		if (claim == null || claim.boundValue() == null) {
			return Optional.empty();
		}
		return Optional.of(new BindingView(key, claim.boundValue(), claim.timestamp()));
	}

	public Optional<OwnerView> owner(String value) {
		Owner owner = store(OWNERS_STORE, Owner.class).get(value);
		if (owner == null || !owner.holds()) {
			return Optional.empty();
		}
		return Optional.of(new OwnerView(value, owner.key(), owner.timestamp()));
	}

	private <V> ReadOnlyKeyValueStore<String, V> store(String name, Class<V> type) {
		try {
			return this.queries.getQueryableStore(name, QueryableStoreTypes.<String, V>keyValueStore());
		}
		catch (InvalidStateStoreException | IllegalStateException ex) {
			throw new StoreUnavailableException(name, ex);
		}
	}

}
