package io.valueguard;

import java.util.List;
import java.util.Random;

import io.valueguard.support.HistoryGenerator;
import io.valueguard.support.InputRecord;
import io.valueguard.support.ReferenceModel;
import io.valueguard.support.SimulatedPipeline;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditional releases under arbitrary interleavings: random histories with conditional releases mixed in, some
 * naming the key's claim then, some a claim it has left (another value, or the same value at another timestamp), run
 * through both stages with partitions delivering in random order. The outcome must be the final-state rule over the
 * history in which each release whose claim was there is a tombstone and each other is absent. Reproduce a failure
 * with the seed it prints: {@code ./mvnw test -Dtest=ConditionalReleaseRuleTests -Dvalueguard.seed=N
 * -Dvalueguard.histories=1}.
 */
class ConditionalReleaseRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final int HISTORIES = Integer.getInteger("valueguard.histories", 3_000);

	@Test
	void shouldMatchTheRuleWithEachReleaseWhoseClaimWasGoneLeftOut() {
		int met = 0;
		int notMet = 0;
		for (int i = 0; i < HISTORIES; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			int values = 1 + random.nextInt(4);
			HistoryGenerator generator = new HistoryGenerator(random, 2 + random.nextInt(8), values);
			List<InputRecord> history = generator.withConditionalReleases(generator.history(5 + random.nextInt(50)),
					true);
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1 + random.nextInt(4), 1 + random.nextInt(3))
				.produce(history)
				.runToCompletion();
			ReferenceModel expected = new ReferenceModel().apply(history);

			String reproduce = "seed " + seed + " (-Dvalueguard.seed=" + seed + " -Dvalueguard.histories=1), history "
					+ history;
			pipeline.assertFollows(expected, reproduce);
			int[] outcomes = outcomes(history);
			met += outcomes[0];
			notMet += outcomes[1];
		}
		// both kinds were exercised, often
		assertThat(met).isGreaterThan(HISTORIES / 2);
		assertThat(notMet).isGreaterThan(HISTORIES / 2);
	}

	/** How many of the history's conditional releases found their claim, and how many did not. */
	private static int[] outcomes(List<InputRecord> history) {
		int[] outcomes = new int[2];
		ReferenceModel model = new ReferenceModel();
		for (InputRecord record : history) {
			if (record.condition() != null) {
				outcomes[model.claimIs(record.key(), record.condition()) ? 0 : 1]++;
			}
			model.apply(record);
		}
		return outcomes;
	}

}
