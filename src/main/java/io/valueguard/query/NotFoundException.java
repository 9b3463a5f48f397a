package io.valueguard.query;

/** Nothing is bound to the key, or nobody owns the value. */
public class NotFoundException extends RuntimeException {

	NotFoundException(String what, String by, String id) {
		super("No " + what + " for " + by + " '" + id + "'");
	}

}
