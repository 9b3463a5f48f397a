package io.valueguard.claims;

import io.valueguard.messages.VerdictBatch;
import org.jspecify.annotations.Nullable;

/** What reaches the key stage processor: a claim or tombstone from the input, or verdicts from the value stage. */
sealed interface KeyInput {

	record Claim(@Nullable String value) implements KeyInput {

	}

	/** A batch of verdicts; null only when a foreign producer wrote a record without a value. */
	record Verdicts(@Nullable VerdictBatch batch) implements KeyInput {

	}

}
