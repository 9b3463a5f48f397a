package io.valueguard.api;

import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.enums.ParameterIn;
import io.valueguard.routing.Answer;
import io.valueguard.routing.ClaimView;
import io.valueguard.routing.LookupRouter;
import org.jspecify.annotations.Nullable;

import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A key's latest claim as the key stage keeps it, bound or not: why a key holds nothing (it lost its claim, or let
 * go), and the effective timestamp its claim got. What synchronous claims read while they wait for a ruling.
 */
@RestController
@RequestMapping("/api/claims")
class ClaimsController {

	private final LookupRouter router;

	ClaimsController(LookupRouter router) {
		this.router = router;
	}

	@Operation(summary = "A key's latest claim, bound or not", description = "value is null after a release; bound is "
			+ "false once the claim lost the value (or was refused, under first-wins); pending is true while a "
			+ "first-wins claim waits for its ruling. 404 when the key has never been claimed.")
	@GetMapping("/{key}")
	ResponseEntity<ClaimView> claim(@PathVariable String key,
			@Parameter(description = BindingsController.MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		Answer<ClaimView> answer = this.router.claim(key, Responses.maxLag(maxLag));
		return Responses.answer(answer, "claim", "key", key);
	}

	@Operation(summary = "A key's latest claim, the key given as a query parameter (for keys with '/')")
	@Parameter(name = "key", in = ParameterIn.QUERY, required = true)
	@GetMapping(params = "key")
	ResponseEntity<ClaimView> claimByParameter(@RequestParam String key,
			@Parameter(description = BindingsController.MAX_LAG) @RequestParam(required = false) @Nullable Long maxLag) {
		return claim(key, maxLag);
	}

}
