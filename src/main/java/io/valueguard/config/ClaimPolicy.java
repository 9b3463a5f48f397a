package io.valueguard.config;

/**
 * Which claim keeps a value when two keys want it ({@code valueguard.policy}), for a whole deployment: both stages
 * and every instance must agree, so it is not a per-claim choice (docs/design.md, "The rules"). While a rolling
 * restart switches it anyway, the value stage rules each claim by the rule of the key stage that sent it
 * (docs/design.md, "Switching policy").
 */
public enum ClaimPolicy {

	/**
	 * The greatest claim by (effective timestamp, key) takes the value from whoever holds it: a phone number handed
	 * to a new subscriber. Bindings are published at once and taken back if a greater claim exists.
	 */
	LATEST_WINS,

	/**
	 * A held value is refused to every other key until its holder lets go: a sign-up's e-mail address. The value
	 * stage decides in the order its owner-commands partition carries the claims, and a binding is published only
	 * once granted.
	 */
	FIRST_WINS

}
