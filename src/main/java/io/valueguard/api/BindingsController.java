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
import io.valueguard.claims.ClaimFormat;
import io.valueguard.claims.ClaimPublisher;
import io.valueguard.claims.ClaimRejection;
import io.valueguard.config.QueryProperties;
import io.valueguard.routing.Answer;
import io.valueguard.routing.BindingLookups;
import io.valueguard.routing.BindingView;
import io.valueguard.routing.ClaimView;
import io.valueguard.routing.Listings;
import io.valueguard.routing.Lookup;
import io.valueguard.routing.Page;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;

/**
 * Claims, releases and lookups by key. Writes are asynchronous unless they ask to wait ({@code ?wait=}): a 202 means
 * the record is on the claims topic, and the binding changes once the stream has processed it. Reads go to whichever
 * instance holds the key. Every endpoint also takes the key as a query parameter ({@code ?key=}), for keys that a
 * path segment cannot carry ({@code /}).
 * <p>
 * A write answers a {@link ResponseEntity} at once, or, when it waits, a {@link DeferredResult} that the ruling sets:
 * Spring MVC handles each by the type returned, hence {@code Object}.
 */
@RestController
@RequestMapping("/api/bindings")
class BindingsController {

	static final String WAIT = "answer once the pipeline has ruled, waiting at most this long (5s, 500ms; up to "
			+ "valueguard.query.max-wait)";

	static final String MAX_LAG = "let a standby or restoring store answer if it is at most this many records behind "
			+ "(X-ValueGuard-Stale and X-ValueGuard-Offset-Lag then say so); without it only the active store answers";

	private final ClaimPublisher publisher;

	private final BindingLookups bindings;

	private final Listings listings;

	private final QueryProperties properties;

	private final ClaimRulings rulings;

	private final ConditionalReleases conditionalReleases;

	BindingsController(ClaimPublisher publisher, BindingLookups bindings, Listings listings,
			QueryProperties properties, ClaimRulings rulings, ConditionalReleases conditionalReleases) {
		this.rulings = rulings;
		this.conditionalReleases = conditionalReleases;
		this.publisher = publisher;
		this.bindings = bindings;
		this.listings = listings;
		this.properties = properties;
	}

	static final String FROM = "claim only if the key still claims this value, and the claim the key has now (a move "
			+ "from it): 409 at once if it does not; if the key claims anew before this claim is applied, of this value "
			+ "or another, nothing is claimed (409 with wait)";

	@Operation(summary = "Claim a value for a key", description = "The body, UTF-8 text, is the value. Without wait: "
			+ "202 once the claim is on the claims topic; the binding changes once the stream has processed it. With "
			+ "wait: 200 with the ruling once the value stage has ruled on this claim (BOUND, or LOST with who holds "
			+ "the value), or 202 as without it if there was no ruling within the wait. A ruling is a fact at that "
			+ "moment: a later, greater claim may still take the value. With from: only from the key's current claim "
			+ "of that value.")
	@ApiResponse(responseCode = "200", description = "The ruling on this claim (with wait)",
			content = @Content(schema = @Schema(implementation = Ruling.class)))
	@ApiResponse(responseCode = "202", description = "On the claims topic; Location says where to look it up",
			content = @Content(schema = @Schema(implementation = ClaimPublisher.Receipt.class)))
	@ApiResponse(responseCode = "409", description = "With from: the key does not claim it (nothing was claimed)",
			content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE))
	@PutMapping(path = "/{key}", consumes = MediaType.TEXT_PLAIN_VALUE)
	Object claim(@PathVariable String key, @RequestBody(required = false) byte @Nullable [] value,
			@Parameter(description = WAIT) @RequestParam(required = false) @Nullable String wait,
			@Parameter(description = FROM) @RequestParam(required = false) @Nullable String from,
			@Nullable Principal caller) {
		Duration patience = Responses.wait(wait, this.properties);
		if (from != null) {
			return claimIf(key, text(value), from, patience, caller);
		}
		if (patience == null) {
			return WriteAnswers.accepted(key, this.publisher.publish(key, text(value), WriteAnswers.nameOf(caller)));
		}
		ClaimPublisher.Receipt receipt = this.publisher.publishWaitedFor(key, text(value), WriteAnswers.nameOf(caller));
		return WriteAnswers.answered(this.rulings.ruling(receipt, patience), patience, key, receipt);
	}

	@Operation(summary = "Claim a value for a key given as a query parameter",
			description = "For keys a path segment cannot carry, such as keys with '/'; wait and from as above.")
	@ApiResponse(responseCode = "200", description = "The ruling on this claim (with wait)",
			content = @Content(schema = @Schema(implementation = Ruling.class)))
	@ApiResponse(responseCode = "202", description = "On the claims topic; Location says where to look it up",
			content = @Content(schema = @Schema(implementation = ClaimPublisher.Receipt.class)))
	@ApiResponse(responseCode = "409", description = "With from: the key does not claim it (nothing was claimed)",
			content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE))
	@PutMapping(params = "key", consumes = MediaType.TEXT_PLAIN_VALUE)
	Object claimByParameter(@RequestParam String key,
			@RequestBody(required = false) byte @Nullable [] value,
			@Parameter(description = WAIT) @RequestParam(required = false) @Nullable String wait,
			@Parameter(description = FROM) @RequestParam(required = false) @Nullable String from,
			@Nullable Principal caller) {
		return claim(key, value, wait, from, caller);
	}

	/**
	 * A move from the key's current claim of {@code from}: the condition names that claim by its effective timestamp
	 * as the key's active store has it now, so the key stage claims nothing if the key claimed anew after this read.
	 */
	private Object claimIf(String key, String value, String from, @Nullable Duration patience,
			@Nullable Principal caller) {
		this.publisher.validate(key, value);
		ClaimCondition condition = currentClaimOf(key, from, "nothing was claimed");
		ClaimPublisher.Receipt receipt = this.publisher.claimIf(key, value, condition, WriteAnswers.nameOf(caller),
				patience != null);
		if (patience == null) {
			return WriteAnswers.accepted(key, receipt);
		}
		return WriteAnswers.answered(this.rulings.conditionalClaim(receipt, condition, patience), patience, key,
				receipt);
	}

	static final String ERASE = "also erase the key's name from both stages' stores, from the bindings topic and the "
			+ "changelogs (once compaction has run; docs/design.md, \"Erasure\"); no eviction event names it. With "
			+ "wait, 200 comes once both stages have erased it";

	static final String IF_VALUE = "release only if the key still claims this value, and the claim the key has now: "
			+ "409 at once if it does not; a later claim of the key, of this value or another, made before the "
			+ "release is applied, is not released (409 with wait)";

	@Operation(summary = "Release: the key gives up whatever it holds (a tombstone); with erase=true, its name is "
			+ "erased", description = "With wait: 200 once the release (or the erasure) has taken effect, or 202 if "
					+ "it had not within the wait. With value: only the key's current claim of that value.")
	@ApiResponse(responseCode = "200", description = "The release or erasure has taken effect (with wait)",
			content = @Content(schema = @Schema(implementation = Release.class)))
	@ApiResponse(responseCode = "202", description = "The tombstone is on the claims topic",
			content = @Content(schema = @Schema(implementation = ClaimPublisher.Receipt.class)))
	@ApiResponse(responseCode = "409", description = "With value: the key does not claim it (nothing was released)",
			content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE))
	@DeleteMapping("/{key}")
	Object release(@PathVariable String key,
			@Parameter(description = WAIT) @RequestParam(required = false) @Nullable String wait,
			@Parameter(description = ERASE) @RequestParam(defaultValue = "false") boolean erase,
			@Parameter(description = IF_VALUE) @RequestParam(required = false) @Nullable String value,
			@Nullable Principal caller) {
		Duration patience = Responses.wait(wait, this.properties);
		if (value != null) {
			if (erase) {
				throw new InvalidRequestException("erase takes no value: an erasure lets go of whatever the key holds");
			}
			return releaseIf(key, value, patience, caller);
		}
		ClaimPublisher.Receipt receipt;
		if (erase) {
			receipt = this.publisher.erase(key, WriteAnswers.nameOf(caller), patience != null);
		}
		else if (patience != null) {
			// marked as waited for: the key stage rings the wait loop once it has applied it
			receipt = this.publisher.publishWaitedFor(key, null, WriteAnswers.nameOf(caller));
		}
		else {
			receipt = this.publisher.publish(key, null, WriteAnswers.nameOf(caller));
		}
		if (patience == null) {
			return WriteAnswers.accepted(key, receipt);
		}
		return WriteAnswers.answered(
				erase ? this.rulings.erasure(receipt, patience) : this.rulings.release(receipt, patience), patience,
				key, receipt);
	}

	@Operation(summary = "Release a key given as a query parameter")
	@ApiResponse(responseCode = "200", description = "The release has taken effect (with wait)",
			content = @Content(schema = @Schema(implementation = Release.class)))
	@ApiResponse(responseCode = "202", description = "The tombstone is on the claims topic",
			content = @Content(schema = @Schema(implementation = ClaimPublisher.Receipt.class)))
	@ApiResponse(responseCode = "409", description = "With value: the key does not claim it (nothing was released)",
			content = @Content(mediaType = MediaType.APPLICATION_PROBLEM_JSON_VALUE))
	@DeleteMapping(params = "key")
	Object releaseByParameter(@RequestParam String key,
			@Parameter(description = WAIT) @RequestParam(required = false) @Nullable String wait,
			@Parameter(description = ERASE) @RequestParam(defaultValue = "false") boolean erase,
			@Parameter(description = IF_VALUE) @RequestParam(required = false) @Nullable String value,
			@Nullable Principal caller) {
		return release(key, wait, erase, value, caller);
	}

	/**
	 * A release of the key's current claim of {@code value}: the condition names that claim by its effective
	 * timestamp as the key's active store has it now, so the key stage lets go of nothing the key claims after this
	 * read, even the same value again.
	 */
	private Object releaseIf(String key, String value, @Nullable Duration patience, @Nullable Principal caller) {
		return this.conditionalReleases.release(key, currentClaimOf(key, value, "nothing was released"), patience,
				caller);
	}

	/**
	 * The condition that names the key's current claim of {@code value} by its effective timestamp, as the key's
	 * active store has it now; 409 when the key does not claim {@code value}, saying what was not done.
	 */
	private ClaimCondition currentClaimOf(String key, String value, String nothingDone) {
		this.publisher.validate(key, value);
		ClaimView claim = this.bindings.claimNow(key).entry();
		if (claim == null || claim.erasing() || !value.equals(claim.value())) {
			throw new ConditionNotMetException(key, value, nothingDone);
		}
		return new ClaimCondition(value, claim.timestamp());
	}

	@Operation(summary = "The value a key holds", description = "Answered by the instance that holds the key's "
			+ "partition; X-ValueGuard-Served-By names it. Under first-wins a claim that awaits its grant at the key "
			+ "holds the value once the value stage has granted it, as a synchronous claim's BOUND says: the lookup "
			+ "then also reads the value's holder, and names both instances.")
	@GetMapping("/{key}")
	ResponseEntity<BindingView> binding(@PathVariable String key,
			@Parameter(description = MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		Answer<BindingView> answer = this.bindings.binding(key, Responses.maxLag(maxLag));
		return Responses.answer(answer, "binding", "key", key);
	}

	// one GET per path in OpenAPI: this form is documented on the listing below
	@Hidden
	@GetMapping(params = "key")
	ResponseEntity<BindingView> bindingByParameter(@RequestParam String key,
			@Parameter(description = MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		return binding(key, maxLag);
	}

	@Operation(summary = "Look up many keys at once: a JSON array of up to valueguard.query.max-batch-size keys",
			description = "Answers a JSON object of each key to what it holds, null when nothing. The keys are grouped "
					+ "by the instance that holds them, with one request per instance, in parallel.")
	@PostMapping(path = "/lookup", consumes = MediaType.APPLICATION_JSON_VALUE)
	ResponseEntity<Map<String, @Nullable BindingView>> lookup(@RequestBody @Nullable List<String> keys,
			@Parameter(description = BindingsController.MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		return ResponseEntity.ok(this.bindings.batch(Responses.batch(keys, this.properties), Responses.maxLag(maxLag)));
	}

	@Operation(operationId = "listBindings",
			summary = "Bound keys in key order (UTF-8 bytes), from every instance, a page at a time; or, with "
			+ "?key=, the value that one key holds (the form for keys with '/')")
	@Parameter(name = "key", in = ParameterIn.QUERY, description = "look up this one key instead of listing")
	@Parameter(name = "maxLag", in = ParameterIn.QUERY, description = "with key: " + BindingsController.MAX_LAG,
			schema = @Schema(type = "integer", format = "int64"))
	@GetMapping(params = "!key")
	ResponseEntity<Page<BindingView>> list(
			@Parameter(description = "the last key of the previous page (its next)") @RequestParam(
					required = false) @Nullable String after,
			@Parameter(description = "entries per page, 1 to valueguard.query.max-page-size") @RequestParam(
					defaultValue = "100") int limit) {
		return Responses.listing(this.listings, Lookup.BINDINGS, after, Responses.limit(limit, this.properties));
	}

	/**
	 * The authenticated caller's name, which the claims record carries; none while the API is open (Spring Security
	 * gives no principal for an anonymous caller).
	 */
	/** The body as strict UTF-8: a body that is not is refused rather than stored with replacement characters. */
	private static String text(byte @Nullable [] body) {
		// a missing body is an empty value, not a release: releases are DELETE
		if (body == null) {
			return "";
		}
		String text = ClaimFormat.decode(body);
		if (text == null) {
			throw new ClaimPublisher.InvalidClaimException(ClaimRejection.VALUE_NOT_UTF8);
		}
		return text;
	}

}
