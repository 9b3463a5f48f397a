package io.valueguard.claims;

import io.valueguard.messages.CommandBatch;
import org.jspecify.annotations.Nullable;

/** What the key stage processor emits, each bound for its own topic. */
sealed interface KeyOutput {

	/** The key's binding changed: the value it holds now, or null. Keyed by key. */
	record Binding(@Nullable String value) implements KeyOutput {

	}

	/** The key lost its value. Keyed by key. */
	record Evicted(EvictionEvent event) implements KeyOutput {

	}

	/** Claims and releases for the values of one owner-commands partition. No key: the batch names its values. */
	record Commands(CommandBatch batch) implements KeyOutput {

	}

}
