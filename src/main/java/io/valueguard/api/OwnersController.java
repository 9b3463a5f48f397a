package io.valueguard.api;

import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.annotations.Hidden;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.media.Schema;
import io.valueguard.config.QueryProperties;
import io.valueguard.routing.Answer;
import io.valueguard.routing.Listings;
import io.valueguard.routing.Lookup;
import io.valueguard.routing.LookupRouter;
import io.valueguard.routing.OwnerView;
import io.valueguard.routing.Page;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
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

	@Operation(summary = "The key that owns a value, from the owners store, the authority on ownership")
	@GetMapping("/{value}")
	ResponseEntity<OwnerView> owner(@PathVariable String value,
			@Parameter(description = BindingsController.MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		Answer<OwnerView> answer = this.router.owner(value, Responses.maxLag(maxLag));
		return Responses.answer(answer, "owner", "value", value);
	}

	// one GET per path in OpenAPI: this form is documented on the listing below
	@Hidden
	@GetMapping(params = "value")
	ResponseEntity<OwnerView> ownerByParameter(@RequestParam String value,
			@Parameter(description = BindingsController.MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		return owner(value, maxLag);
	}

	@Operation(summary = "Look up many values at once: a JSON array of up to valueguard.query.max-batch-size values",
			description = "Answers a JSON object of each value to what it holds, null when nothing. The values are grouped "
					+ "by the instance that holds them, with one request per instance, in parallel.")
	@PostMapping(path = "/lookup", consumes = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<Map<String, @Nullable OwnerView>> lookup(@RequestBody @Nullable List<String> values,
			@Parameter(description = BindingsController.MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		return ResponseEntity.ok(this.router.batch(Lookup.OWNERS, Responses.batch(values, this.properties),
				Responses.maxLag(maxLag)));
	}

	@Operation(operationId = "listOwners",
			summary = "Owned values in value order (UTF-8 bytes), from every instance, a page at a time; or, "
			+ "with ?value=, the key that owns that one value (the form for values with '/')")
	@Parameter(name = "value", in = ParameterIn.QUERY, description = "look up this one value instead of listing")
	@Parameter(name = "maxLag", in = ParameterIn.QUERY, description = "with value: " + BindingsController.MAX_LAG,
			schema = @Schema(type = "integer", format = "int64"))
	@GetMapping(params = "!value")
	ResponseEntity<Page<OwnerView>> list(
			@Parameter(description = "the last value of the previous page (its next)") @RequestParam(
					required = false) @Nullable String after,
			@Parameter(description = "entries per page, 1 to valueguard.query.max-page-size") @RequestParam(
					defaultValue = "100") int limit) {
		return Responses.listing(this.listings, Lookup.OWNERS, after, Responses.limit(limit, this.properties));
	}

}
