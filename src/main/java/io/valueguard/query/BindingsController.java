package io.valueguard.query;

import java.net.URI;

import io.valueguard.claims.ClaimPublisher;
import org.jspecify.annotations.Nullable;

import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Claims, releases and lookups by key. Writes are asynchronous: a 202 means the record is on the claims topic; the
 * binding changes once the stream has processed it.
 */
@RestController
@RequestMapping("/api/bindings")
class BindingsController {

	private final ClaimPublisher publisher;

	private final StoreQueries queries;

	BindingsController(ClaimPublisher publisher, StoreQueries queries) {
		this.publisher = publisher;
		this.queries = queries;
	}

	@PutMapping(path = "/{key}", consumes = MediaType.TEXT_PLAIN_VALUE)
	ResponseEntity<ClaimPublisher.Receipt> claim(@PathVariable String key,
			@RequestBody(required = false) @Nullable String value) {
		// a missing body is an empty value, not a release: releases are DELETE
		return accepted(key, this.publisher.publish(key, (value != null) ? value : ""));
	}

	@DeleteMapping("/{key}")
	ResponseEntity<ClaimPublisher.Receipt> release(@PathVariable String key) {
		return accepted(key, this.publisher.publish(key, null));
	}

	@GetMapping("/{key}")
	BindingView binding(@PathVariable String key) {
		return this.queries.binding(key).orElseThrow(() -> new NotFoundException("binding", "key", key));
	}

	private static ResponseEntity<ClaimPublisher.Receipt> accepted(String key, ClaimPublisher.Receipt receipt) {
		return ResponseEntity.accepted().location(URI.create("/api/bindings/" + UriPaths.segment(key))).body(receipt);
	}

}
