package io.valueguard.api;

import java.security.Principal;
import java.time.Duration;

import io.valueguard.claims.ClaimCondition;
import io.valueguard.claims.ClaimPublisher;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * Sends a release that names the claim it lets go of, read from a store just before, and answers it as the key stage
 * decides it (docs/design.md, "Conditional releases and moves"): {@code DELETE /api/bindings/{key}?value=} names the
 * key's own claim, {@code DELETE /api/owners/{value}} the value's holder's.
 */
@Component
class ConditionalReleases {

	private final ClaimPublisher publisher;

	private final ClaimRulings rulings;

	ConditionalReleases(ClaimPublisher publisher, ClaimRulings rulings) {
		this.publisher = publisher;
		this.rulings = rulings;
	}

	/** 202 with the receipt; with {@code patience}, 200 once released, 409 if the key had left the claim first. */
	Object release(String key, ClaimCondition condition, @Nullable Duration patience, @Nullable Principal caller) {
		ClaimPublisher.Receipt receipt = this.publisher.releaseIf(key, condition, WriteAnswers.nameOf(caller),
				patience != null);
		if (patience == null) {
			return WriteAnswers.accepted(key, receipt);
		}
		return WriteAnswers.answered(this.rulings.conditionalRelease(receipt, condition, patience), patience, key,
				receipt);
	}

}
