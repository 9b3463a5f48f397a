package io.valueguard.api;

/**
 * A conditional release ({@code DELETE ?value=}) or move ({@code PUT ?from=}) whose key does not claim the value it
 * names, read from the key's claim at the request: nothing was released or claimed.
 */
class ConditionNotMetException extends RuntimeException {

	ConditionNotMetException(String key, String value, String nothingDone) {
		super("Key '" + key + "' does not claim '" + value + "': " + nothingDone);
	}

}
