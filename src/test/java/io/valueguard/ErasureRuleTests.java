package io.valueguard;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.support.FirstWinsModel;
import io.valueguard.support.HistoryGenerator;
import io.valueguard.support.InputRecord;
import io.valueguard.support.ReferenceModel;
import io.valueguard.support.SimulatedPipeline;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Erasure under arbitrary interleavings, with each value task's passes over its store in slices between commands:
 * for everyone else an erasure is exactly a tombstone, and afterwards no store names the erased key. Random histories
 * get one or two keys erased after a random record of theirs (an erased key sends nothing after); every record
 * timestamp is distinct, so that no two keys' claims tie on time and the rank an erased claim takes at its own
 * timestamp (above every key, docs/design.md "Erasure") changes nothing: the outcome must then be the rule's model
 * applied to the history with each erasure read as a tombstone. A second part keeps the ties and checks what must
 * hold regardless: the erased names are gone, and (first-wins) no value is ever shown held twice. Reproduce a failure
 * with the seed it prints: {@code ./mvnw test -Dtest=ErasureRuleTests -Dvalueguard.seed=N -Dvalueguard.histories=1}.
 */
class ErasureRuleTests {

	private static final long BASE_SEED = Long.getLong("valueguard.seed", System.nanoTime());

	private static final int HISTORIES = Integer.getInteger("valueguard.histories", 2_000);

	@ParameterizedTest
	@EnumSource(ClaimPolicy.class)
	void shouldActAsATombstoneForEveryoneElseAndLeaveTheNameNowhere(ClaimPolicy policy) {
		int erasedEntries = 0;
		for (int i = 0; i < HISTORIES; i++) {
			long seed = BASE_SEED + i;
			Random random = new Random(seed);
			boolean distinctTimes = i % 4 != 3;
			List<InputRecord> generated = new HistoryGenerator(random, 2 + random.nextInt(10), 1 + random.nextInt(4))
				.history(5 + random.nextInt(50));
			Set<String> erased = new HashSet<>();
			List<InputRecord> history = withErasures(random, generated, distinctTimes, erased);
			String reproduce = policy + ", seed " + seed + " (-Dvalueguard.seed=" + seed
					+ " -Dvalueguard.histories=1), history " + history;
			SimulatedPipeline pipeline = new SimulatedPipeline(random, 1 + random.nextInt(4), 1 + random.nextInt(3),
					policy);
			try {
				pipeline.produce(history).runToCompletion();
			}
			catch (AssertionError ex) {
				throw new AssertionError(ex.getMessage() + ", " + reproduce, ex);
			}

			assertThat(pipeline.keyClaims()).as("bindings store, " + reproduce).doesNotContainKeys(erased
				.toArray(String[]::new));
			assertThat(pipeline.ownerEntries().values()).as("owners store, " + reproduce)
				.noneSatisfy((owner) -> assertThat(erased).contains(owner.key()));
			erasedEntries += (int) pipeline.ownerEntries().values().stream().filter((owner) -> owner.erased()).count();
			if (!distinctTimes) {
				continue;
			}
			Map<String, String> bindings;
			Map<String, String> owners;
			if (policy == ClaimPolicy.LATEST_WINS) {
				ReferenceModel expected = new ReferenceModel().apply(history);
				bindings = expected.bindings();
				owners = expected.owners();
			}
			else {
				FirstWinsModel expected = new FirstWinsModel().history(history).arbitrate(pipeline.arbitrated());
				bindings = expected.bindings();
				owners = expected.owners();
			}
			assertThat(pipeline.storedBindings()).as("bindings store, " + reproduce).isEqualTo(bindings);
			assertThat(pipeline.bindingsTopic()).as("bindings topic as a table, " + reproduce).isEqualTo(bindings);
			assertThat(pipeline.storedOwners()).as("owners store, " + reproduce).isEqualTo(owners);
		}
		if (policy == ClaimPolicy.LATEST_WINS) {
			// the histories must exercise what they check: claims kept with their key's name erased
			assertThat(erasedEntries).as("owners entries whose key was erased").isGreaterThan(HISTORIES / 4);
		}
	}

	/**
	 * The generated history with one or two of its keys erased after a random record of theirs, and nothing from them
	 * after; with distinct times, each record's timestamp made unique, far enough apart that first-wins' one-millisecond
	 * steps never reach the next.
	 */
	private static List<InputRecord> withErasures(Random random, List<InputRecord> generated, boolean distinctTimes,
			Set<String> erased) {
		List<String> keys = new ArrayList<>(InputRecord.keysOf(generated));
		keys.sort(null);
		int toErase = Math.min(keys.size(), 1 + random.nextInt(2));
		while (erased.size() < toErase) {
			erased.add(keys.get(random.nextInt(keys.size())));
		}
		Map<String, Integer> remaining = new java.util.HashMap<>();
		for (String key : erased) {
			long records = generated.stream().filter((record) -> record.key().equals(key)).count();
			remaining.put(key, random.nextInt((int) records));
		}
		List<InputRecord> history = new ArrayList<>();
		for (int position = 0; position < generated.size(); position++) {
			InputRecord record = generated.get(position);
			long timestamp = distinctTimes ? (record.timestamp() * 1_000 + position) * 100 : record.timestamp();
			Integer left = remaining.get(record.key());
			if (left == null) {
				history.add(new InputRecord(record.key(), record.value(), timestamp));
			}
			else if (left >= 0) {
				history.add(new InputRecord(record.key(), record.value(), timestamp));
				if (left == 0) {
					history.add(InputRecord.erasure(record.key(), timestamp));
				}
				remaining.put(record.key(), left - 1);
			}
		}
		return history;
	}

}
