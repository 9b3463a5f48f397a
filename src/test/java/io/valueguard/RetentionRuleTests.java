package io.valueguard;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.store.Retention;
import io.valueguard.support.FirstWinsModel;
import io.valueguard.support.HistoryGenerator;
import io.valueguard.support.InputRecord;
import io.valueguard.support.ReferenceModel;
import io.valueguard.support.SimulatedPipeline;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both rules with retention on, under arbitrary interleavings and sweeps at random moments: every accepted claim is
 * decided as if nothing had been forgotten. Thousands of random histories, with a retention shorter than the spread of
 * their timestamps so that many claims are refused and many entries forgotten, are compared with the rule's model
 * applied to the history without the records the key stage refused, and (latest-wins) with the claims the value stage
 * refused never taking a value. Every refusal must be of a claim that old. Reproduce a failure with the seed it
 * prints: {@code ./mvnw test -Dtest=RetentionRuleTests -Dvalueguard.seed=N -Dvalueguard.histories=1}.
 */
class RetentionRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final int HISTORIES = Integer.getInteger("valueguard.histories", 3_000);

	@ParameterizedTest
	@EnumSource(ClaimPolicy.class)
	void shouldDecideEveryAcceptedClaimAsIfNothingWereForgotten(ClaimPolicy policy) {
		int refusals = 0;
		int forgotten = 0;
		for (int i = 0; i < HISTORIES; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			int keys = 2 + random.nextInt(12);
			int values = 1 + random.nextInt(4);
			List<InputRecord> history = new HistoryGenerator(random, keys, values).history(5 + random.nextInt(60));
			// the histories' timestamps span 40 ms
			long retention = 1 + random.nextInt(30);
			String reproduce = policy + ", retention " + retention + " ms, seed " + seed + " (-Dvalueguard.seed="
					+ seed + " -Dvalueguard.histories=1), history " + history;
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1 + random.nextInt(4), 1 + random.nextInt(3),
					policy, new Retention(retention));
			try {
				pipeline.produce(history).runToCompletion().sweepAll();
			}
			catch (AssertionError ex) {
				throw new AssertionError(ex.getMessage() + ", " + reproduce, ex);
			}

			List<InputRecord> accepted = new ArrayList<>();
			// first-wins may stamp a claim a millisecond after its key's clock, once per record at most
			long latest = history.stream().mapToLong(InputRecord::timestamp).max().orElseThrow()
					+ ((policy == ClaimPolicy.FIRST_WINS) ? history.size() : 0);
			for (int position = 0; position < history.size(); position++) {
				InputRecord record = history.get(position);
				if (pipeline.refusedRecords().contains(position)) {
					assertThat(latest - record.timestamp()).as("refused at the key stage, " + reproduce)
						.isGreaterThan(retention);
				}
				else {
					accepted.add(record);
				}
			}
			for (long timestamp : pipeline.refusedClaimTimestamps()) {
				assertThat(latest - timestamp).as("refused at the value stage, " + reproduce)
					.isGreaterThan(retention);
			}
			Map<String, String> bindings;
			Map<String, String> owners;
			if (policy == ClaimPolicy.LATEST_WINS) {
				ReferenceModel expected = new ReferenceModel().refusing(pipeline.refusedClaims()).apply(accepted);
				bindings = expected.bindings();
				owners = expected.owners();
			}
			else {
				assertThat(pipeline.refusedClaims()).as("first-wins refuses only at the key stage").isEmpty();
				FirstWinsModel expected = new FirstWinsModel().history(accepted).arbitrate(pipeline.arbitrated());
				bindings = expected.bindings();
				owners = expected.owners();
			}
			assertThat(pipeline.storedBindings()).as("bindings store, " + reproduce).isEqualTo(bindings);
			assertThat(pipeline.bindingsTopic()).as("bindings topic as a table, " + reproduce).isEqualTo(bindings);
			assertThat(pipeline.storedOwners()).as("owners store, " + reproduce).isEqualTo(owners);
			refusals += pipeline.refusedRecords().size() + pipeline.refusedClaims().size();
			forgotten += (InputRecord.keysOf(history).size() - pipeline.keyClaims().size())
					+ (InputRecord.valuesOf(history).size() - pipeline.ownerEntries().size());
		}
		// the histories must exercise what they check
		assertThat(refusals).as("claims refused as too old").isGreaterThan(HISTORIES);
		assertThat(forgotten).as("entries forgotten").isGreaterThan(HISTORIES);
	}

}
