package io.valueguard.claims;

/** Why an input record is not a valid claim. Written to the DLQ header {@code valueguard.dlq.reason}. */
public enum ClaimRejection {

	MISSING_KEY("the key is null or empty"),

	KEY_TOO_LONG("the key is longer than valueguard.limits.max-key-bytes"),

	KEY_NOT_UTF8("the key is not valid UTF-8"),

	EMPTY_VALUE("the value is empty; send a null value (a tombstone) to give up a value"),

	VALUE_TOO_LONG("the value is longer than valueguard.limits.max-value-bytes"),

	VALUE_NOT_UTF8("the value is not valid UTF-8"),

	VALUE_NOT_JSON("the value is not a JSON document (valueguard.claims.format=json)"),

	POINTER_NOT_SCALAR("the JSON value at valueguard.claims.value-pointer is an object or an array, not a string, "
			+ "number or boolean"),

	CLAIM_TOO_OLD("the claim's timestamp is more than valueguard.retention behind the stream time of its partition"),

	KEY_BEING_ERASED("the key's name is being erased; claim it again once the erasure is done"),

	ERASE_NOT_TOMBSTONE("a record with the header valueguard.erase must be a tombstone (a null value)"),

	INVALID_CONDITION("a condition (valueguard.if-value) cannot be set on an erasure; its header valueguard.if-value "
			+ "must be a non-empty UTF-8 value and valueguard.if-timestamp, if any, a decimal number"),

	WRONG_PARTITION("the record is on a partition of ValueGuard's internal rerouted-claims topic that is not its key's: "
			+ "something other than ValueGuard wrote it there, or the topic's partitions changed");

	private final String description;

	ClaimRejection(String description) {
		this.description = description;
	}

	public String description() {
		return this.description;
	}

}
