package io.valueguard.claims;

import io.valueguard.messages.Eviction;
import org.jspecify.annotations.Nullable;

/** What reaches the key stage processor: a claim or tombstone from the input, or a verdict from the value stage. */
sealed interface KeyInput {

	record Claim(@Nullable String value) implements KeyInput {

	}

	record Verdict(Eviction eviction) implements KeyInput {

	}

}
