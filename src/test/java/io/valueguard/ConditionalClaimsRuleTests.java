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
 * Conditional releases and claims under arbitrary interleavings: random histories with conditional releases and moves
 * mixed in, some naming the key's claim then, some a claim it has left (another value, or the same value at another
 * timestamp), run through both stages with partitions delivering in random order. The outcome must be the final-state
 * rule over the history in which each conditional record whose claim was there is a plain release or claim and each
 * other is absent. Reproduce a failure
 * with the seed it prints: {@code ./mvnw test -Dtest=ConditionalClaimsRuleTests -Dvalueguard.seed=N
 * -Dvalueguard.histories=1}.
 */
class ConditionalClaimsRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final int HISTORIES = Integer.getInteger("valueguard.histories", 3_000);

	@Test
	void shouldMatchTheRuleWithEachRecordWhoseClaimWasGoneLeftOut() {
		// releases, then claims: how many found their claim, how many did not
		int[][] outcomes = new int[2][2];
		for (int i = 0; i < HISTORIES; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			int values = 1 + random.nextInt(4);
			HistoryGenerator generator = new HistoryGenerator(random, 2 + random.nextInt(8), values);
			List<InputRecord> history = generator.withConditions(generator.history(5 + random.nextInt(50)),
					true);
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1 + random.nextInt(4), 1 + random.nextInt(3))
				.produce(history)
				.runToCompletion();
			ReferenceModel expected = new ReferenceModel().apply(history);

			String reproduce = "seed " + seed + " (-Dvalueguard.seed=" + seed + " -Dvalueguard.histories=1), history "
					+ history;
			pipeline.assertFollows(expected, reproduce);
			count(history, outcomes);
		}
		// both outcomes were exercised, often, for releases and for claims alike
		for (int[] kind : outcomes) {
			assertThat(kind[0]).isGreaterThan(HISTORIES / 4);
			assertThat(kind[1]).isGreaterThan(HISTORIES / 4);
		}
	}

	/** How many of the history's conditional records found their claim, and how many did not. */
	private static void count(List<InputRecord> history, int[][] outcomes) {
		ReferenceModel model = new ReferenceModel();
		for (InputRecord record : history) {
			if (record.condition() != null) {
				outcomes[(record.value() == null) ? 0 : 1][model.claimIs(record.key(), record.condition()) ? 0 : 1]++;
			}
			model.apply(record);
		}
	}

}
