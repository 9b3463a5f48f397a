package io.valueguard.claims;

import io.valueguard.messages.OwnerCommand;
import org.jspecify.annotations.Nullable;

/** What the key stage processor emits, each bound for its own topic. */
sealed interface KeyOutput {

	/** The key's binding changed: the value it holds now, or null. Keyed by key. */
	record Binding(@Nullable String value) implements KeyOutput {

	}

	/** The key lost its value. Keyed by key. */
	record Evicted(EvictionEvent event) implements KeyOutput {

	}

	/** A claim or release for the value stage. Keyed by value. */
	record Command(OwnerCommand command) implements KeyOutput {

	}

}
