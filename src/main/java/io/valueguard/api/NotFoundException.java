package io.valueguard.api;

import io.valueguard.routing.Answer;
import org.jspecify.annotations.Nullable;

/** Nothing is bound to the key, or nobody owns the value. */
public class NotFoundException extends RuntimeException {

	private final @Nullable Answer<?> answer;

	NotFoundException(String what, String by, String id, @Nullable Answer<?> answer) {
		super("No " + what + " for " + by + " '" + id + "'");
		this.answer = answer;
	}

	/** The lookup that found nothing: who served it and how stale it may be. */
	public @Nullable Answer<?> answer() {
		return this.answer;
	}

}
