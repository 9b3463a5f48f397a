package io.valueguard.query;

import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Lookups by value: who owns it, from the {@code owners} store, the authority on ownership. The value may also come
 * as a query parameter ({@code ?value=}), for values that a path segment cannot carry ({@code /}).
 */
@RestController
@RequestMapping("/api/owners")
class OwnersController {

	private final LookupRouter router;

	private final Listings listings;

	private final QueryProperties properties;

	OwnersController(LookupRouter router, Listings listings, QueryProperties properties) {
		this.router = router;
		this.listings = listings;
		this.properties = properties;
	}

	@GetMapping("/{value}")
	ResponseEntity<OwnerView> owner(@PathVariable String value, @RequestParam(required = false) @Nullable Long maxLag,
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		Answer<OwnerView> answer = this.router.owner(value, Responses.maxLag(maxLag), forwardedBy != null);
		return Responses.answer(answer, "owner", "value", value);
	}

	@GetMapping(params = "value")
	ResponseEntity<OwnerView> ownerByParameter(@RequestParam String value,
			@RequestParam(required = false) @Nullable Long maxLag,
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		return owner(value, maxLag, forwardedBy);
	}

	@GetMapping(params = "!value")
	ResponseEntity<?> list(@RequestParam(required = false) @Nullable String after,
			@RequestParam(defaultValue = "100") int limit,
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		return Responses.listing(this.listings, StoreView.OWNERS, after, Responses.limit(limit, this.properties),
				forwardedBy != null);
	}

}
