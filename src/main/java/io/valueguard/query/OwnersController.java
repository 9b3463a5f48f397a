package io.valueguard.query;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Lookups by value: who owns it, from the {@code owners} store, the authority on ownership. */
@RestController
@RequestMapping("/api/owners")
class OwnersController {

	private final StoreQueries queries;

	OwnersController(StoreQueries queries) {
		this.queries = queries;
	}

	@GetMapping("/{value}")
	OwnerView owner(@PathVariable String value) {
		return this.queries.owner(value).orElseThrow(() -> new NotFoundException("owner", "value", value));
	}

}
