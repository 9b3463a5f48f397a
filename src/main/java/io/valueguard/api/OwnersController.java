package io.valueguard.api;

import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.swagger.v3.oas.annotations.Hidden;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.valueguard.claims.ClaimCondition;
import io.valueguard.claims.ClaimPublisher;
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
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Lookups by value: who owns it, from the {@code owners} store, the authority on ownership; and freeing a value from
 * its holder, for administrators. The value may also come as a query parameter ({@code ?value=}), for values that a
 * path segment cannot carry ({@code /}).
 */
@RestController
@RequestMapping("/api/owners")
class OwnersController {

	private final LookupRouter router;

	private final Listings listings;

	private final QueryProperties properties;

	private final ConditionalReleases conditionalReleases;

	OwnersController(LookupRouter router, Listings listings, QueryProperties properties,
			ConditionalReleases conditionalReleases) {
		this.router = router;
		this.listings = listings;
		this.properties = properties;
		this.conditionalReleases = conditionalReleases;
	}

	@Operation(summary = "Free a value: its holder lets go of it (the admin authority)",
			description = "Reads who holds the value and sends that key a release of exactly that claim, as "
					+ "DELETE /api/bindings/{key}?value= does: a claim the key makes meanwhile is not released. 404 "
					+ "when nobody holds the value. With wait: 200 naming the key once it has let go, or 409 if it "
					+ "had left the claim before the release arrived (the value is then being freed by that move).")
	@ApiResponse(responseCode = "200", description = "The holder let go of the value (with wait)",
			content = @Content(schema = @Schema(implementation = Release.class)))
	@ApiResponse(responseCode = "202", description = "The release is on the claims topic",
			content = @Content(schema = @Schema(implementation = ClaimPublisher.Receipt.class)))
	@ApiResponse(responseCode = "409", description = "The holder had left the claim first (with wait)",
			content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE))
	@DeleteMapping("/{value}")
	Object free(@PathVariable String value,
			@Parameter(description = BindingsController.WAIT) @RequestParam(required = false) @Nullable String wait,
			@Nullable Principal caller) {
		Duration patience = Responses.wait(wait, this.properties);
		Answer<OwnerView> holder = this.router.ownerNow(value);
		OwnerView owner = holder.entry();
		if (owner == null) {
			throw new NotFoundException("owner", "value", value, holder);
		}
		return this.conditionalReleases.release(owner.key(), new ClaimCondition(value, owner.timestamp()), patience,
				caller);
	}

	@Operation(summary = "Free a value given as a query parameter (for values with '/')")
	@ApiResponse(responseCode = "200", description = "The holder let go of the value (with wait)",
			content = @Content(schema = @Schema(implementation = Release.class)))
	@ApiResponse(responseCode = "202", description = "The release is on the claims topic",
			content = @Content(schema = @Schema(implementation = ClaimPublisher.Receipt.class)))
	@ApiResponse(responseCode = "409", description = "The holder had left the claim first (with wait)",
			content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE))
	@DeleteMapping(params = "value")
	Object freeByParameter(@RequestParam String value,
			@Parameter(description = BindingsController.WAIT) @RequestParam(required = false) @Nullable String wait,
			@Nullable Principal caller) {
		return free(value, wait, caller);
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
