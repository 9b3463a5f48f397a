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
 * The final-state rule under arbitrary interleavings: thousands of random histories run through both stages with
 * partitions delivering in random order, each compared with {@link ReferenceModel}. Reproduce a failure with the seed
 * it prints: {@code ./mvnw test -Dtest=FinalStateRuleTests -Dvalueguard.seed=N -Dvalueguard.histories=1}.
 */
class FinalStateRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final int HISTORIES = Integer.getInteger("valueguard.histories", 4_000);

	@Test
	void shouldMatchReferenceModelUnderRandomInterleavings() {
		for (int i = 0; i < HISTORIES; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			int keys = 2 + random.nextInt(12);
			int values = 1 + random.nextInt(4);
			List<InputRecord> history = new HistoryGenerator(random, keys, values).history(5 + random.nextInt(60));
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1 + random.nextInt(4), 1 + random.nextInt(3))
				.produce(history)
				.runToCompletion();
			ReferenceModel expected = new ReferenceModel().apply(history);

			String reproduce = "seed " + seed + " (-Dvalueguard.seed=" + seed + " -Dvalueguard.histories=1), history "
					+ history;
			pipeline.assertFollows(expected, reproduce);
		}
	}

	@Test
	void shouldNotDependOnInterleaving() {
		Random random = new Random(BASE_SEED);
		List<InputRecord> history = new HistoryGenerator(random, 10, 3).history(200);
		SimulatedPipeline first = new SimulatedPipeline(new Random(BASE_SEED + 1), 4, 3).produce(history)
			.runToCompletion();
		for (int run = 2; run < 50; run++) {
			SimulatedPipeline other = new SimulatedPipeline(new Random(BASE_SEED + run), 4, 3).produce(history)
				.runToCompletion();
			assertThat(other.storedBindings()).as("seed %d run %d", BASE_SEED, run).isEqualTo(first.storedBindings());
			assertThat(other.storedOwners()).as("seed %d run %d", BASE_SEED, run).isEqualTo(first.storedOwners());
		}
	}

}
