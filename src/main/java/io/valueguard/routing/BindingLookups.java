package io.valueguard.routing;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.valueguard.claims.KeyClaim;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.ValueGuardProperties;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * Lookups of the value a key holds, one key or many. Under latest-wins the key stage's record says it. Under
 * first-wins a claim waits at the key ({@code pending}) until the value stage's grant comes back as a verdict, a
 * commit of the value stage after the grant; a synchronous claim is answered BOUND as soon as the value stage has
 * granted it, so a lookup of a pending claim also asks the value's holder, and a caller that reads its binding right
 * after a BOUND finds it. Listings and the bindings topic show such a binding once the grant has reached the key.
 */
@Component
public class BindingLookups {

	/** The key's record, bound or not; forwarded answers may come from the cache, as binding lookups' may. */
	private static final Lookup<KeyClaim, ClaimView> CLAIMS = Lookup.CLAIMS.cached();

	private final LookupRouter router;

	private final boolean firstWins;

	BindingLookups(LookupRouter router, ValueGuardProperties settings) {
		this.router = router;
		this.firstWins = settings.policy() == ClaimPolicy.FIRST_WINS;
	}

	/** The key's latest claim as its active store has it now, bound or not: never from a cache or a standby. */
	public Answer<ClaimView> claimNow(String key) {
		return this.router.claim(key, null);
	}

	public Answer<BindingView> binding(String key, @Nullable Long maxLag) {
		if (!this.firstWins) {
			return this.router.binding(key, maxLag);
		}
		Answer<ClaimView> claim = this.router.lookup(CLAIMS, key, maxLag);
		ClaimView entry = claim.entry();
		if (entry == null || !entry.pending() || entry.value() == null) {
			return new Answer<>((entry != null) ? entry.binding(null) : null, claim.servedBy(), claim.staleLag());
		}
		Answer<OwnerView> holder = this.router.owner(entry.value(), maxLag);
		return new Answer<>(entry.binding(holder.entry()), servedBy(claim, holder), staleLag(claim, holder));
	}

	/** Every key of the batch, null when it holds nothing; the holders of pending claims' values in a second batch. */
	public Map<String, @Nullable BindingView> batch(List<String> keys, @Nullable Long maxLag) {
		if (!this.firstWins) {
			return this.router.batch(Lookup.BINDINGS, keys, maxLag);
		}
		Map<String, @Nullable ClaimView> claims = this.router.batch(CLAIMS, keys, maxLag);
		List<String> pending = claims.values()
			.stream()
			.filter((claim) -> claim != null && claim.pending())
			.map(ClaimView::value)
			.filter(Objects::nonNull)
			.distinct()
			.toList();
		Map<String, @Nullable OwnerView> holders = pending.isEmpty() ? Map.of()
				: this.router.batch(Lookup.OWNERS, pending, maxLag);
		Map<String, @Nullable BindingView> bindings = new LinkedHashMap<>();
		claims.forEach((key, claim) -> bindings.put(key,
				(claim != null) ? claim.binding((claim.value() != null) ? holders.get(claim.value()) : null) : null));
		return bindings;
	}

	/** Both instances read, the key's first; one name when they are the same. */
	private static String servedBy(Answer<?> claim, Answer<?> holder) {
		return claim.servedBy().equals(holder.servedBy()) ? claim.servedBy()
				: claim.servedBy() + ", " + holder.servedBy();
	}

	/** The larger lag of the two reads when either was stale, else none. */
	private static @Nullable Long staleLag(Answer<?> claim, Answer<?> holder) {
		if (claim.staleLag() == null) {
			return holder.staleLag();
		}
		return (holder.staleLag() == null) ? claim.staleLag() : Math.max(claim.staleLag(), holder.staleLag());
	}

}
