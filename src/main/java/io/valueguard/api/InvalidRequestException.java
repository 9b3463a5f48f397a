package io.valueguard.api;

/** A query parameter is out of range. */
public class InvalidRequestException extends RuntimeException {

	InvalidRequestException(String message) {
		super(message);
	}

}
