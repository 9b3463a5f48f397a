package io.valueguard.claims;

import org.jspecify.annotations.Nullable;

/**
 * What a conditional release lets go of: the key's latest claim if it is of {@code value}, and, when
 * {@code timestamp} is given, made at that effective timestamp. A release sent on someone's behalf (the device that
 * was unpaired, the seat that was returned) may arrive after the key claimed something else; unconditional, it would
 * take the newer claim with it. Given, the timestamp tells two claims of the same value apart, so that a release
 * meant for an earlier claim of the value does not take a later one.
 */
public record ReleaseCondition(String value, @Nullable Long timestamp) {

	/** True when {@code claim}, a key's entry, is the claim this release is for. */
	public boolean isMetBy(@Nullable KeyClaim claim) {
		return claim != null && !claim.isErasing() && this.value.equals(claim.value())
				&& (this.timestamp == null || this.timestamp == claim.timestamp());
	}

}
