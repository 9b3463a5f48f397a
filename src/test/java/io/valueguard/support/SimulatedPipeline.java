package io.valueguard.support;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;

import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.KeyClaim;
import io.valueguard.claims.KeyStage;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.owners.Owner;
import io.valueguard.owners.ValueStage;
import io.valueguard.store.StateTable;

/**
 * Both stages wired through simulated partitions: claims and feedback partitioned by key, commands partitioned by
 * value. Each partition is a FIFO queue, as a Kafka partition is; which partition delivers next is chosen at random,
 * so every run is one of the interleavings that tasks on different instances could produce. It records the order in
 * which the value stage applied commands (what a value's owner-commands partition carries), and under first-wins
 * checks after every step that the bindings topic never shows two keys holding one value.
 */
public final class SimulatedPipeline {

	private final Random random;

	private final int valuePartitions;

	private final Map<String, Integer> keyPartitions = new HashMap<>();

	private final List<Deque<InputRecord>> claims = new ArrayList<>();

	private final List<Deque<Map.Entry<String, Verdict>>> feedback = new ArrayList<>();

	private final List<Deque<Map.Entry<String, OwnerCommand>>> commands = new ArrayList<>();

	private final Map<String, KeyClaim> bindingsStore = new HashMap<>();

	private final Map<String, Owner> ownersStore = new HashMap<>();

	private final Map<String, String> bindingsTopic = new HashMap<>();

	private final List<EvictionEvent> evictions = new ArrayList<>();

	private final List<Map.Entry<String, OwnerCommand>> arbitrated = new ArrayList<>();

	private final ClaimPolicy policy;

	private final KeyStage keyStage;

	private final ValueStage valueStage;

	private long clock;

	public SimulatedPipeline(Random random, int keyPartitions, int valuePartitions) {
		this(random, keyPartitions, valuePartitions, ClaimPolicy.LATEST_WINS);
	}

	public SimulatedPipeline(Random random, int keyPartitions, int valuePartitions, ClaimPolicy policy) {
		this.random = random;
		this.policy = policy;
		this.valuePartitions = valuePartitions;
		for (int i = 0; i < keyPartitions; i++) {
			this.claims.add(new ArrayDeque<>());
			this.feedback.add(new ArrayDeque<>());
		}
		for (int i = 0; i < valuePartitions; i++) {
			this.commands.add(new ArrayDeque<>());
		}
		this.keyStage = new KeyStage(table(this.bindingsStore), new KeyStage.Effects() {

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
				SimulatedPipeline.this.commands.get(Math.floorMod(value.hashCode(), valuePartitions))
					.add(Map.entry(value, command));
			}

		}, policy);
		this.valueStage = new ValueStage(table(this.ownersStore), (key, verdict) -> {
			if (verdict.keyPartition() != this.keyPartitions.get(key)) {
				throw new AssertionError("Verdict of " + key + " routed to partition " + verdict.keyPartition()
						+ " but the key lives on " + this.keyPartitions.get(key));
			}
			this.feedback.get(verdict.keyPartition()).add(Map.entry(key, verdict));
		}, policy);
	}

	/** Appends records to the claims partitions; each key goes to a random partition, as any partitioner may. */
	public SimulatedPipeline produce(List<InputRecord> records) {
		for (InputRecord record : records) {
			int partition = this.keyPartitions.computeIfAbsent(record.key(),
					(key) -> this.random.nextInt(this.claims.size()));
			this.claims.get(partition).add(record);
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
				whenNotEmpty(this.claims.get(p), ready, (record) -> this.keyStage.apply(record.key(), record.value(),
						record.timestamp(), partition));
				whenNotEmpty(this.feedback.get(p), ready,
						(entry) -> this.keyStage.verdict(entry.getKey(), entry.getValue(), ++this.clock));
			}
			for (Deque<Map.Entry<String, OwnerCommand>> queue : this.commands) {
				whenNotEmpty(queue, ready, (entry) -> {
					this.arbitrated.add(entry);
					this.valueStage.apply(entry.getKey(), entry.getValue());
				});
			}
			if (ready.isEmpty()) {
				return this;
			}
			ready.get(this.random.nextInt(ready.size())).run();
			if (this.policy == ClaimPolicy.FIRST_WINS) {
				assertNoValueHeldTwice();
			}
		}
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

	private static <K, V> StateTable<K, V> table(Map<K, V> map) {
		return new StateTable<>() {

			@Override
			public V get(K key) {
				return map.get(key);
			}

			@Override
			public void put(K key, V value) {
				map.put(key, value);
			}

		};
	}

}
