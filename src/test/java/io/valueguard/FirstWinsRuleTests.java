package io.valueguard;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.KeyClaim;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.Verdict;
import io.valueguard.support.FirstWinsModel;
import io.valueguard.support.HistoryGenerator;
import io.valueguard.support.InputRecord;
import io.valueguard.support.SimulatedPipeline;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The first-wins rule under arbitrary interleavings: thousands of random histories run through both stages with
 * partitions delivering in random order, each compared with {@link FirstWinsModel} applied to the order in which the
 * value stage received the commands. The pipeline itself checks after every step that the bindings topic never shows
 * two keys on one value. Reproduce a failure with the seed it prints:
 * {@code ./mvnw test -Dtest=FirstWinsRuleTests -Dvalueguard.seed=N -Dvalueguard.histories=1}.
 */
class FirstWinsRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final int HISTORIES = Integer.getInteger("valueguard.histories", 4_000);

	@Test
	void shouldMatchUniqueIndexInCommandOrderUnderRandomInterleavings() {
		matchUniqueIndex(false);
	}

	/** A conditional release or claim whose claim is gone counts as no record: the index is as without it. */
	@Test
	void shouldMatchUniqueIndexWithConditionalRecordsMixedIn() {
		matchUniqueIndex(true);
	}

	private void matchUniqueIndex(boolean conditions) {
		for (int i = 0; i < HISTORIES; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			int keys = 2 + random.nextInt(12);
			int values = 1 + random.nextInt(4);
			HistoryGenerator generator = new HistoryGenerator(random, keys, values);
			List<InputRecord> history = generator.history(5 + random.nextInt(60));
			if (conditions) {
				history = generator.withConditions(history, false);
			}
			String reproduce = "seed " + seed + " (-Dvalueguard.seed=" + seed + " -Dvalueguard.histories=1), history "
					+ history;
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1 + random.nextInt(4), 1 + random.nextInt(3),
					ClaimPolicy.FIRST_WINS);
			try {
				pipeline.produce(history).runToCompletion();
			}
			catch (AssertionError ex) {
				throw new AssertionError(ex.getMessage() + ", " + reproduce, ex);
			}
			FirstWinsModel expected = new FirstWinsModel().history(history).arbitrate(pipeline.arbitrated());

			assertThat(pipeline.storedBindings()).as("bindings store, " + reproduce).isEqualTo(expected.bindings());
			assertThat(pipeline.bindingsTopic()).as("bindings topic as a table, " + reproduce)
				.isEqualTo(expected.bindings());
			assertThat(pipeline.storedOwners()).as("owners store, " + reproduce).isEqualTo(expected.owners());
			assertThat(pipeline.keyClaims().values()).as("every claim ruled on, " + reproduce)
				.noneMatch(KeyClaim::pending);
			assertThat(pipeline.evictions()).as("nobody loses a value it holds, " + reproduce)
				.extracting(EvictionEvent::reason)
				.allMatch(Verdict.Reason.REFUSED::equals);
		}
	}

	@Test
	void shouldRefuseEveryClaimOfAHeldValueWhateverItsTimestamp() {
		Random random = new Random(BASE_SEED);
		for (int i = 0; i < 200; i++) {
			// one holder first, then later and earlier claims of the same value from other keys
			List<InputRecord> history = new ArrayList<>(List.of(new InputRecord("holder", "v", 5_000)));
			for (int k = 0; k < 10; k++) {
				history.add(new InputRecord("k" + k, "v", 1_000 + random.nextInt(8_000)));
			}
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1, 1, ClaimPolicy.FIRST_WINS).produce(history)
				.runToCompletion();
			assertThat(pipeline.storedOwners()).as("seed %d", BASE_SEED).containsEntry("v", "holder").hasSize(1);
			assertThat(pipeline.evictions()).hasSize(10)
				.allSatisfy((event) -> assertThat(event.evictedBy()).isEqualTo("holder"));
		}
	}

}
