package io.valueguard.api;

/**
 * A conditional release ({@code DELETE ?value=}) whose key does not claim the value: nothing was released. At the
 * request, from the key's claim then; or after it, when the key stage found the claim gone before the release.
 */
class ConditionNotMetException extends RuntimeException {

	ConditionNotMetException(String key, String value) {
		super("Key '" + key + "' does not claim '" + value + "': nothing was released");
	}

}
