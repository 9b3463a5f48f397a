package io.valueguard.query;

import io.valueguard.claims.ClaimPublisher;
import io.valueguard.claims.ClaimRejection;
import io.valueguard.claims.ClaimValidator;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Claims, releases and lookups by key. Writes are asynchronous: a 202 means the record is on the claims topic; the
 * binding changes once the stream has processed it. Reads go to whichever instance holds the key. Every endpoint
 * also takes the key as a query parameter ({@code ?key=}), for keys that a path segment cannot carry ({@code /}).
 */
@RestController
@RequestMapping("/api/bindings")
class BindingsController {

	private final ClaimPublisher publisher;

	private final LookupRouter router;

	private final Listings listings;

	private final QueryProperties properties;

	BindingsController(ClaimPublisher publisher, LookupRouter router, Listings listings, QueryProperties properties) {
		this.publisher = publisher;
		this.router = router;
		this.listings = listings;
		this.properties = properties;
	}

	@PutMapping(path = "/{key}", consumes = MediaType.TEXT_PLAIN_VALUE)
	ResponseEntity<ClaimPublisher.Receipt> claim(@PathVariable String key,
			@RequestBody(required = false) byte @Nullable [] value) {
		return accepted(key, this.publisher.publish(key, text(value)));
	}

	@PutMapping(params = "key", consumes = MediaType.TEXT_PLAIN_VALUE)
	ResponseEntity<ClaimPublisher.Receipt> claimByParameter(@RequestParam String key,
			@RequestBody(required = false) byte @Nullable [] value) {
		return claim(key, value);
	}

	@DeleteMapping("/{key}")
	ResponseEntity<ClaimPublisher.Receipt> release(@PathVariable String key) {
		return accepted(key, this.publisher.publish(key, null));
	}

	@DeleteMapping(params = "key")
	ResponseEntity<ClaimPublisher.Receipt> releaseByParameter(@RequestParam String key) {
		return release(key);
	}

	@GetMapping("/{key}")
	ResponseEntity<BindingView> binding(@PathVariable String key, @RequestParam(required = false) @Nullable Long maxLag,
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		Answer<BindingView> answer = this.router.binding(key, Responses.maxLag(maxLag), forwardedBy != null);
		return Responses.answer(answer, "binding", "key", key);
	}

	@GetMapping(params = "key")
	ResponseEntity<BindingView> bindingByParameter(@RequestParam String key,
			@RequestParam(required = false) @Nullable Long maxLag,
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		return binding(key, maxLag, forwardedBy);
	}

	@GetMapping(params = "!key")
	ResponseEntity<?> list(@RequestParam(required = false) @Nullable String after,
			@RequestParam(defaultValue = "100") int limit,
			@RequestHeader(name = ForwardingHeaders.FORWARDED, required = false) @Nullable String forwardedBy) {
		return Responses.listing(this.listings, StoreView.BINDINGS, after, Responses.limit(limit, this.properties),
				forwardedBy != null);
	}

	/** The body as strict UTF-8: a body that is not is refused rather than stored with replacement characters. */
	private static String text(byte @Nullable [] body) {
		// a missing body is an empty value, not a release: releases are DELETE
		if (body == null) {
			return "";
		}
		String text = ClaimValidator.decode(body);
		if (text == null) {
			throw new ClaimPublisher.InvalidClaimException(ClaimRejection.VALUE_NOT_UTF8);
		}
		return text;
	}

	private static ResponseEntity<ClaimPublisher.Receipt> accepted(String key, ClaimPublisher.Receipt receipt) {
		return ResponseEntity.accepted().location(UriPaths.location(StoreView.BINDINGS, key)).body(receipt);
	}

}
