package io.valueguard.routing;

import org.jspecify.annotations.Nullable;

/**
 * A key's latest claim as the key stage keeps it: the value its latest record claims (null after a release), that
 * claim's effective timestamp, whether the key holds the value (false once it lost it, and under first-wins until it
 * is granted), whether the claim still waits for the value stage's ruling (first-wins only), and whether the key's
 * name is being erased (then it claims nothing; once the erasure is done the key has no claim at all).
 */
public record ClaimView(String key, @Nullable String value, long timestamp, boolean bound, boolean pending,
		boolean erasing) {

	/**
	 * True when this first-wins claim still waits at the key for its ruling, and the value stage has granted it
	 * already: the value's {@code holder} there is this very claim. The grant reaches the key as a verdict, a commit
	 * of the value stage later; from the value stage's ruling on, the key holds the value.
	 */
	public boolean grantedBy(@Nullable OwnerView holder) {
		return this.pending && holder != null && holder.value().equals(this.value) && holder.key().equals(this.key)
				&& holder.timestamp() == this.timestamp;
	}

	/**
	 * The value the key holds, as a binding: when the key's record says it is bound, or when its claim is pending and
	 * {@code holder}, the value's holder, shows it {@linkplain #grantedBy granted}. Null when it holds nothing.
	 */
	public @Nullable BindingView binding(@Nullable OwnerView holder) {
		String held = this.value;
		return (held != null && (this.bound || grantedBy(holder))) ? new BindingView(this.key, held, this.timestamp)
				: null;
	}

}
