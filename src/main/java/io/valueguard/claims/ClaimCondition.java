package io.valueguard.claims;

import org.jspecify.annotations.Nullable;

/**
 * A condition on the key's latest claim, under which a record applies: its latest claim is of {@code value} and, when
 * {@code timestamp} is given, was made at that effective timestamp. A release sent on someone's behalf (the device that
 * was unpaired, the seat that was returned) may arrive after the key claimed something else; unconditional, it would
 * take the newer claim with it. A move (the account's number changed from one to another) may likewise arrive after
 * the key moved elsewhere, and would undo that. Given, the timestamp tells two claims of the same value apart, so that
 * a record meant for an earlier claim of the value does not act on a later one.
 */
public record ClaimCondition(String value, @Nullable Long timestamp) {

	/** True when {@code claim}, a key's entry, is the claim this condition names. */
	public boolean isMetBy(@Nullable KeyClaim claim) {
		return claim != null && !claim.isErasing() && this.value.equals(claim.value())
				&& (this.timestamp == null || this.timestamp == claim.timestamp());
	}

}
