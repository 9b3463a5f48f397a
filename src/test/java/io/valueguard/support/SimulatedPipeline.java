package io.valueguard.support;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Consumer;

import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.KeyClaim;
import io.valueguard.claims.KeyStage;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.Verdict;
import io.valueguard.owners.Erasures;
import io.valueguard.owners.Owner;
import io.valueguard.owners.ValueStage;
import io.valueguard.store.MapTable;
import io.valueguard.store.Retention;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Both stages wired through simulated partitions: claims and feedback partitioned by key, commands partitioned by
 * value. Each partition is a FIFO queue, as a Kafka partition is; which partition delivers next is chosen at random,
 * so every run is one of the interleavings that tasks on different instances could produce. It records the order in
 * which the value stage applied commands (what a value's owner-commands partition carries), and under first-wins
 * checks after every step that the bindings topic never shows two keys holding one value. With retention, each
 * simulated task keeps a stream time (the largest timestamp it has read, as Kafka Streams does), the stages refuse
 * claims too old for it, and sweeps forget entries at random moments, as the punctuations of real tasks would.
 */
public final class SimulatedPipeline {

	private final Random random;

	private final Map<String, Integer> keyPartitions = new HashMap<>();

	private final List<Deque<Indexed>> claims = new ArrayList<>();

	private final List<Deque<Map.Entry<String, Verdict>>> feedback = new ArrayList<>();

	private final List<Deque<Map.Entry<String, OwnerCommand>>> commands = new ArrayList<>();

	private final Map<String, KeyClaim> bindingsStore = new HashMap<>();

	private final Map<String, Owner> ownersStore = new HashMap<>();

	private final Map<String, String> bindingsTopic = new HashMap<>();

	private final List<EvictionEvent> evictions = new ArrayList<>();

	private final List<Map.Entry<String, OwnerCommand>> arbitrated = new ArrayList<>();

	private final ClaimPolicy policy;

	private final Retention retention;

	private final long[] keyStreamTimes;

	private final long[] valueStreamTimes;

	/** Positions in the produced history of the records the key stage refused as too old (to the DLQ). */
	private final Set<Integer> refusedRecords = new HashSet<>();

	/** Claims the value stage refused as too old, named by {@link #claimId}. */
	private final Set<String> refusedClaims = new HashSet<>();

	/** The effective timestamps of those claims. */
	private final List<Long> refusedClaimTimestamps = new ArrayList<>();

	/** Each claim command sent, named by its key and how many claims that key had sent with it. */
	private final Map<OwnerCommand, String> claimIds = new IdentityHashMap<>();

	private final Map<String, Integer> claimsSent = new HashMap<>();

	private String arbitrating;

	private int produced;

	/** One key stage per partition, as each task has its own: they share the bindings store, each its own keys. */
	private final List<KeyStage> keyStages = new ArrayList<>();

	private final KeyStage.Effects keyEffects;

	/** One value stage per partition, as each task has its own: they share the owners store, each its own values. */
	private final List<ValueStage> valueStages = new ArrayList<>();

	private final ValueStage.Verdicts verdicts;

	/** The policy each key partition's task runs, and each value partition's. */
	private final ClaimPolicy[] keyRules;

	private final ClaimPolicy[] valueRules;

	/** The policy that a rolling restart during the run switches every task to, or null for none. */
	private @Nullable ClaimPolicy switchingTo;

	/** The rule of the key stage that sent each command, as its batch's header names it. */
	private final Map<OwnerCommand, ClaimPolicy> commandRules = new IdentityHashMap<>();

	/** The rule of the key stage now applying a record. */
	private ClaimPolicy sendingRule;

	/** False to have the value stages rule every claim by their own policy, as before commands named their rule. */
	private boolean rulesNamed = true;

	/** Per value partition: where its pass over the owners store goes on (after this value), or null for none. */
	private final List<String> passes = new ArrayList<>();

	/** Per value partition: whether a pass is under way. */
	private final List<Boolean> passing = new ArrayList<>();

	private long clock;

	public SimulatedPipeline(Random random, int keyPartitions, int valuePartitions) {
		this(random, keyPartitions, valuePartitions, ClaimPolicy.LATEST_WINS);
	}

	public SimulatedPipeline(Random random, int keyPartitions, int valuePartitions, ClaimPolicy policy) {
		this(random, keyPartitions, valuePartitions, policy, Retention.OFF);
	}

	public SimulatedPipeline(Random random, int keyPartitions, int valuePartitions, ClaimPolicy policy,
			Retention retention) {
		this.random = random;
		this.policy = policy;
		this.retention = retention;
		this.keyStreamTimes = new long[keyPartitions];
		this.valueStreamTimes = new long[valuePartitions];
		Arrays.fill(this.keyStreamTimes, -1);
		Arrays.fill(this.valueStreamTimes, -1);
		for (int i = 0; i < keyPartitions; i++) {
			this.claims.add(new ArrayDeque<>());
			this.feedback.add(new ArrayDeque<>());
		}
		for (int i = 0; i < valuePartitions; i++) {
			this.commands.add(new ArrayDeque<>());
		}
		this.keyRules = new ClaimPolicy[keyPartitions];
		this.valueRules = new ClaimPolicy[valuePartitions];
		Arrays.fill(this.keyRules, policy);
		Arrays.fill(this.valueRules, policy);
		this.sendingRule = policy;
		this.keyEffects = new KeyStage.Effects() {

			@Override
			public void bound(String key, String value, long timestamp) {
				SimulatedPipeline.this.bindingsTopic.put(key, value);
			}

			@Override
			public void unbound(String key, long timestamp) {
				SimulatedPipeline.this.bindingsTopic.remove(key);
			}

			@Override
			public void evicted(EvictionEvent event) {
				SimulatedPipeline.this.evictions.add(event);
			}

			@Override
			public void command(String value, OwnerCommand command) {
				if (command.type() == OwnerCommand.Type.CLAIM) {
					int sent = SimulatedPipeline.this.claimsSent.merge(command.key(), 1, Integer::sum);
					SimulatedPipeline.this.claimIds.put(command, claimId(command.key(), sent));
				}
				SimulatedPipeline.this.commandRules.put(command, SimulatedPipeline.this.sendingRule);
				SimulatedPipeline.this.commands.get(valuePartition(value)).add(Map.entry(value, command));
			}

			@Override
			public int eraseEverywhere(OwnerCommand erasure) {
				SimulatedPipeline.this.commands.forEach((partition) -> partition.add(Map.entry("", erasure)));
				return SimulatedPipeline.this.commands.size();
			}

		};
		for (int p = 0; p < keyPartitions; p++) {
			this.keyStages.add(new KeyStage(new MapTable<>(this.bindingsStore), this.keyEffects, policy, retention));
		}
		ValueStage.Verdicts verdicts = (key, verdict) -> {
			if (verdict.keyPartition() != this.keyPartitions.get(key)) {
				throw new AssertionError("Verdict of " + key + " routed to partition " + verdict.keyPartition()
						+ " but the key lives on " + this.keyPartitions.get(key));
			}
			if (verdict.reason() == Verdict.Reason.TOO_OLD) {
				this.refusedClaims.add(this.arbitrating);
				this.refusedClaimTimestamps.add(verdict.timestamp());
			}
			this.feedback.get(verdict.keyPartition()).add(Map.entry(key, verdict));
		};
		this.verdicts = verdicts;
		for (int q = 0; q < valuePartitions; q++) {
			this.valueStages.add(new ValueStage(new MapTable<>(this.ownersStore), verdicts, policy, retention,
					new Erasures(new MapTable<>(), verdicts, policy)));
			this.passes.add(null);
			this.passing.add(false);
		}
	}

	/**
	 * A rolling restart to {@code next} during the run: each key and value partition's task moves, at a random moment
	 * between deliveries, to an instance that runs it, with its store; commands already sent keep the rule of the key
	 * stage that sent them. The run ends once every task runs {@code next}.
	 */
	public SimulatedPipeline switchingTo(ClaimPolicy next) {
		this.switchingTo = next;
		return this;
	}

	/** The value stages rule every claim by their own policy, as before each batch named the rule of its sender. */
	public SimulatedPipeline ignoringCommandRules() {
		this.rulesNamed = false;
		return this;
	}

	/** Appends records to the claims partitions; each key goes to a random partition, as any partitioner may. */
	public SimulatedPipeline produce(List<InputRecord> records) {
		for (InputRecord record : records) {
			int partition = this.keyPartitions.computeIfAbsent(record.key(),
					(key) -> this.random.nextInt(this.claims.size()));
			this.claims.get(partition).add(new Indexed(this.produced++, record));
			if (record.erase() && record.value() != null) {
				throw new IllegalArgumentException("An erasure is a tombstone: " + record);
			}
		}
		return this;
	}

	/** Delivers queued records, one partition head at a time, in random order, until every queue is empty. */
	public SimulatedPipeline runToCompletion() {
		List<Runnable> ready = new ArrayList<>();
		while (true) {
			ready.clear();
			for (int p = 0; p < this.claims.size(); p++) {
				int partition = p;
				whenNotEmpty(this.claims.get(p), ready, (indexed) -> {
					InputRecord record = indexed.record();
					long streamTime = advance(this.keyStreamTimes, partition, record.timestamp());
					this.sendingRule = this.keyRules[partition];
					KeyStage keyStage = this.keyStages.get(partition);
					KeyStage.Outcome outcome = record.erase()
							? keyStage.erase(record.key(), record.timestamp(), partition)
							: keyStage.apply(record.key(), record.value(), record.timestamp(), partition, streamTime,
									record.condition());
					if (outcome == KeyStage.Outcome.TOO_OLD) {
						this.refusedRecords.add(indexed.position());
					}
				});
				whenNotEmpty(this.feedback.get(p), ready, (entry) -> {
					advance(this.keyStreamTimes, partition, entry.getValue().decidedAt());
					this.sendingRule = this.keyRules[partition];
					this.keyStages.get(partition).verdict(entry.getKey(), entry.getValue(), ++this.clock);
				});
				if (this.retention.enabled()) {
					ready.add(() -> sweepKeys(partition));
				}
			}
			for (int q = 0; q < this.commands.size(); q++) {
				int partition = q;
				whenNotEmpty(this.commands.get(q), ready, (entry) -> {
					this.arbitrated.add(entry);
					this.arbitrating = this.claimIds.get(entry.getValue());
					long streamTime = advance(this.valueStreamTimes, partition, entry.getValue().timestamp());
					ClaimPolicy rule = this.rulesNamed
							? this.commandRules.getOrDefault(entry.getValue(), this.valueRules[partition])
							: this.valueRules[partition];
					this.valueStages.get(partition).apply(entry.getKey(), entry.getValue(), streamTime, rule);
				});
				if (this.passing.get(q) || this.valueStages.get(q).erasures().pending()) {
					ready.add(() -> passSlice(partition));
				}
				if (this.retention.enabled()) {
					ready.add(() -> sweepValues(partition));
				}
			}
			addSwitches(ready);
			if (ready.size() == sweeps()) {
				// only sweeps left: the input is all processed
				return this;
			}
			ready.get(this.random.nextInt(ready.size())).run();
			if (this.policy == ClaimPolicy.FIRST_WINS && this.switchingTo == null) {
				assertNoValueHeldTwice();
			}
		}
	}

	/** Moves, when chosen, a task that does not run the policy switched to yet to an instance that does. */
	private void addSwitches(List<Runnable> ready) {
		ClaimPolicy next = this.switchingTo;
		if (next == null) {
			return;
		}
		for (int p = 0; p < this.keyRules.length; p++) {
			int partition = p;
			if (this.keyRules[p] != next) {
				ready.add(() -> {
					this.keyRules[partition] = next;
					this.keyStages.set(partition,
							new KeyStage(new MapTable<>(this.bindingsStore), this.keyEffects, next, this.retention));
				});
			}
		}
		for (int q = 0; q < this.valueRules.length; q++) {
			int partition = q;
			if (this.valueRules[q] != next) {
				ready.add(() -> {
					this.valueRules[partition] = next;
					// the histories switched here hold no erasures: the task's erasures in progress start empty
					this.valueStages.set(partition, new ValueStage(new MapTable<>(this.ownersStore), this.verdicts,
							next, this.retention, new Erasures(new MapTable<>(), this.verdicts, next)));
				});
			}
		}
	}

	/**
	 * One slice of a value task's pass over its owners entries, as {@code store/Sweep} reads them: in key order from
	 * where the last slice ended, a few at a time, with commands interleaved between slices; a pass starts only when an
	 * erasure waits for one.
	 */
	private void passSlice(int partition) {
		Erasures erasures = this.valueStages.get(partition).erasures();
		if (!this.passing.get(partition)) {
			erasures.passStarts();
			this.passing.set(partition, true);
			this.passes.set(partition, null);
		}
		String after = this.passes.get(partition);
		// in the store's order: unsigned UTF-8 bytes, as RocksDB and Kafka's in-memory store keep keys
		java.util.TreeSet<String> inStoreOrder = new java.util.TreeSet<>(SimulatedPipeline::utf8Order);
		inStoreOrder.addAll(this.ownersStore.keySet());
		List<String> slice = inStoreOrder.stream()
			.filter((value) -> valuePartition(value) == partition && (after == null || utf8Order(value, after) > 0))
			.limit(1 + this.random.nextInt(3))
			.toList();
		for (String value : slice) {
			Owner entry = this.ownersStore.get(value);
			Owner kept = erasures.rewrite(value, entry);
			if (kept == null) {
				this.ownersStore.remove(value);
			}
			else {
				this.ownersStore.put(value, kept);
			}
		}
		if (!slice.isEmpty()) {
			erasures.passedTo(slice.get(slice.size() - 1));
		}
		if (slice.isEmpty()) {
			this.passing.set(partition, false);
			erasures.passEnded();
		}
		else {
			this.passes.set(partition, slice.get(slice.size() - 1));
		}
	}

	private static int utf8Order(String one, String other) {
		return Arrays.compareUnsigned(one.getBytes(java.nio.charset.StandardCharsets.UTF_8),
				other.getBytes(java.nio.charset.StandardCharsets.UTF_8));
	}

	private int sweeps() {
		return this.retention.enabled() ? this.claims.size() + this.commands.size() : 0;
	}

	private static long advance(long[] streamTimes, int partition, long timestamp) {
		streamTimes[partition] = Math.max(streamTimes[partition], timestamp);
		return streamTimes[partition];
	}

	/** Forgets what retention lets go in one key partition, at its stream time: what a task's sweep does. */
	private void sweepKeys(int partition) {
		this.bindingsStore.entrySet()
			.removeIf((entry) -> this.keyPartitions.get(entry.getKey()) == partition
					&& this.keyStages.get(partition).forgettable(entry.getValue(), this.keyStreamTimes[partition]));
	}

	private void sweepValues(int partition) {
		this.ownersStore.entrySet()
			.removeIf((entry) -> valuePartition(entry.getKey()) == partition
					&& this.valueStages.get(partition).forgettable(entry.getValue(), this.valueStreamTimes[partition]));
	}

	/** Sweeps every partition once more, after the input is processed. */
	public SimulatedPipeline sweepAll() {
		for (int p = 0; p < this.claims.size(); p++) {
			sweepKeys(p);
		}
		for (int q = 0; q < this.commands.size(); q++) {
			sweepValues(q);
		}
		return this;
	}

	private int valuePartition(String value) {
		return Math.floorMod(value.hashCode(), this.commands.size());
	}

	/**
	 * How a claim is named in {@link #refusedClaims()}: its key, and how many claims (records that were not
	 * duplicates) the key had made with it. Two claims of a key may share value and timestamp (a key that let go and
	 * claims again at the same effective time), and the value stage may refuse one and not the other.
	 */
	public static String claimId(String key, int claimNumber) {
		return key + "#" + claimNumber;
	}

	/** Positions in the produced history of the records the key stage refused as too old. */
	public Set<Integer> refusedRecords() {
		return this.refusedRecords;
	}

	/** The claims the value stage refused as too old, named by {@link #claimId}. */
	public Set<String> refusedClaims() {
		return this.refusedClaims;
	}

	/** The effective timestamps of the claims the value stage refused as too old. */
	public List<Long> refusedClaimTimestamps() {
		return this.refusedClaimTimestamps;
	}

	/** The owners store's entries, released ones included. */
	public Map<String, Owner> ownerEntries() {
		return this.ownersStore;
	}

	private void assertNoValueHeldTwice() {
		Map<String, String> holders = new HashMap<>();
		this.bindingsTopic.forEach((key, value) -> {
			String other = holders.put(value, key);
			if (other != null) {
				throw new AssertionError("The bindings topic shows " + value + " held by both " + other + " and " + key
						+ ": " + this.bindingsTopic);
			}
		});
	}

	private static <T> void whenNotEmpty(Deque<T> queue, List<Runnable> ready, Consumer<T> deliver) {
		if (!queue.isEmpty()) {
			ready.add(() -> deliver.accept(queue.poll()));
		}
	}

	/** Key to bound value, as the bindings store has it. */
	public Map<String, String> storedBindings() {
		Map<String, String> bound = new HashMap<>();
		this.bindingsStore.forEach((key, claim) -> {
			if (claim.boundValue() != null) {
				bound.put(key, claim.boundValue());
			}
		});
		return bound;
	}

	/** Key to bound claim timestamp, as the bindings store has it. */
	public Map<String, Long> storedBindingTimestamps() {
		Map<String, Long> timestamps = new HashMap<>();
		this.bindingsStore.forEach((key, claim) -> {
			if (claim.boundValue() != null) {
				timestamps.put(key, claim.timestamp());
			}
		});
		return timestamps;
	}

	/** Value to owning key, as the owners store has it. */
	public Map<String, String> storedOwners() {
		Map<String, String> owners = new HashMap<>();
		this.ownersStore.forEach((value, owner) -> {
			if (owner.holds()) {
				owners.put(value, owner.key());
			}
		});
		return owners;
	}

	/** The bindings topic read as a table. */
	public Map<String, String> bindingsTopic() {
		return this.bindingsTopic;
	}

	public List<EvictionEvent> evictions() {
		return this.evictions;
	}

	/** Every command in the order the value stage applied it, value first. */
	public List<Map.Entry<String, OwnerCommand>> arbitrated() {
		return this.arbitrated;
	}

	/** The key stage's entries, pending and lost claims included. */
	public Map<String, KeyClaim> keyClaims() {
		return this.bindingsStore;
	}

	private record Indexed(int position, InputRecord record) {

	}


	/**
	 * Checks that both stages' stores and the bindings topic, read as a table, hold what the rule says for the
	 * history: {@code expected} over it; {@code reproduce} says how to run the failing history again.
	 */
	public void assertFollows(ReferenceModel expected, String reproduce) {
		assertThat(storedBindings()).as("bindings store, " + reproduce).isEqualTo(expected.bindings());
		assertThat(storedBindingTimestamps()).as("binding timestamps, " + reproduce)
			.isEqualTo(expected.bindingTimestamps());
		assertThat(storedOwners()).as("owners store, " + reproduce).isEqualTo(expected.owners());
		assertThat(bindingsTopic()).as("bindings topic as a table, " + reproduce).isEqualTo(expected.bindings());
	}

}
