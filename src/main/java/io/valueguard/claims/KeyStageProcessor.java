package io.valueguard.claims;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.ForeignRecords;
import io.valueguard.messages.KeyPartitions;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.RulingBell;
import io.valueguard.messages.SentAt;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.store.ActivePartitions;
import io.valueguard.store.AppliedInput;
import io.valueguard.store.CommitThrottle;
import io.valueguard.store.Outbox;
import io.valueguard.store.PromptCommits;
import io.valueguard.store.Retention;
import io.valueguard.store.StageStores;
import io.valueguard.store.WriteBehindTable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.api.RecordMetadata;
import org.apache.kafka.streams.state.StoreBuilder;
import org.jspecify.annotations.Nullable;

/**
 * Runs {@link KeyStage} in a stream task, over the task's partition of the {@code bindings} store. Its input is the
 * raw records of the claims topic and of the rerouted-claims topic, which it validates and applies where their key
 * belongs ({@link Placement}), and {@link Feedback} (verdict batches) from the value stage; it forwards each output to
 * the node named for it ({@link #TO_BINDINGS} and the others), which leads to that output's topic.
 */
final class KeyStageProcessor implements Processor<Object, Object, Object, Object> {

	private static final Log logger = LogFactory.getLog(KeyStageProcessor.class);

	/**
	 * Whether this process said that claims arrive on partitions other than their keys': once, as tasks are made anew
	 * at every rebalance and a producer that partitions otherwise sends to every partition; the counter goes on.
	 */
	private static final AtomicBoolean warnedRerouting = new AtomicBoolean();

	/** A batch of verdicts from the value stage; null only when a foreign producer wrote a record without a value. */
	record Feedback(@Nullable VerdictBatch batch) {

	}

	/**
	 * Where a key's claims belong: the partition Kafka's default partitioner gives its key, over the claims topic's
	 * partitions, which is where lookups, REST writes and erasures find the key. A claim read anywhere else goes
	 * there through {@code reroutedTopic} (docs/design.md, "Claims on another partition than their key's").
	 */
	record Placement(int claimsPartitions, String reroutedTopic) {

		boolean home(byte[] key, int partition) {
			return this.claimsPartitions == 1 || KeyPartitions.of(key, this.claimsPartitions) == partition;
		}

		/** Whether a record was read from the rerouted-claims topic, sent to its key's partition already. */
		boolean rerouted(@Nullable RecordMetadata source) {
			return source != null && this.reroutedTopic.equals(source.topic());
		}

	}

	/** The node to the bindings topic: key to the value it holds now (a string), or null. */
	static final String TO_BINDINGS = "to-bindings";

	/** The node to the evictions topic: {@link EvictionEvent}s keyed by the evicted key. */
	static final String TO_EVICTIONS = "to-evictions";

	/** The node to the owner-commands topic: {@link CommandBatch}es without a key, each naming its values. */
	static final String TO_OWNER_COMMANDS = "to-owner-commands";

	/** The node to the DLQ: invalid claims records, bytes as they came, the reason in headers. */
	static final String TO_DLQ = "to-dlq";

	/** The node to the rerouted-claims topic: claims records read on another partition than their key's. */
	static final String TO_REROUTED = "to-rerouted";

	/** Name of the key stage's store: key to its current claim. */
	static final String STORE = "bindings";

	/** Name of the store that holds the task's writes to {@link #STORE} until it commits. */
	static final String PENDING_WRITES = StageStores.pendingWritesOf(STORE);

	/** Name of the store that holds the task's commands until they go out in batches. */
	static final String OUTBOX = "owner-command-outbox";

	/** The stores of a task with a changelog topic, as {@link #supplier} declares them. */
	static List<String> changelogged() {
		return StageStores.changelogged(STORE);
	}

	static ProcessorSupplier<Object, Object, Object, Object> supplier(ClaimValidator validator,
			KeyStageEvents events, RulingBell bell, ActivePartitions active, ValueGuardProperties.Store settings,
			ClaimPolicy policy, Retention retention, Placement placement, int commandPartitions,
			@Nullable Duration promptCommitInterval) {
		StageStores<KeyClaim, CommandBatch.Entry> stores = StageStores.of(settings.type().supplier(STORE),
				new KeyClaim.Serde(), settings.recentEntries(), OUTBOX, settings.compaction());
		CommitThrottle promptCommits = new CommitThrottle(promptCommitInterval);
		return new ProcessorSupplier<>() {

			@Override
			public Processor<Object, Object, Object, Object> get() {
				return new KeyStageProcessor(stores, validator, events, bell, active, policy, retention, placement,
						commandPartitions, new PromptCommits(promptCommits));
			}

			@Override
			public Set<StoreBuilder<?>> stores() {
				return stores.all();
			}

		};
	}

	private final StageStores<KeyClaim, CommandBatch.Entry> stores;

	private final ClaimValidator validator;

	private final KeyStageEvents events;

	private final RulingBell bell;

	private final ActivePartitions active;

	private final ClaimPolicy policy;

	private final Retention retention;

	private final Placement placement;

	private final int commandPartitions;

	private final PromptCommits promptCommits;

	/** Whether someone waits for the ruling on the claim being applied: its command's batch says so. */
	private boolean waitedFor;

	private @Nullable ProcessorContext<Object, Object> context;

	private @Nullable KeyStage stage;

	private @Nullable Outbox<CommandBatch.Entry> outbox;

	private @Nullable AppliedInput applied;

	private KeyStageProcessor(StageStores<KeyClaim, CommandBatch.Entry> stores, ClaimValidator validator,
			KeyStageEvents events, RulingBell bell, ActivePartitions active, ClaimPolicy policy, Retention retention,
			Placement placement, int commandPartitions, PromptCommits promptCommits) {
		this.stores = stores;
		this.validator = validator;
		this.events = events;
		this.bell = bell;
		this.active = active;
		this.policy = policy;
		this.retention = retention;
		this.placement = placement;
		this.commandPartitions = commandPartitions;
		this.promptCommits = promptCommits;
	}

	@Override
	public void init(ProcessorContext<Object, Object> context) {
		this.context = context;
		WriteBehindTable<String, KeyClaim> claims = this.stores.connect(context);
		this.stage = new KeyStage(claims, new Effects(), this.policy, this.retention);
		this.stores.sweep(context, this.retention, claims, this.stage::forgettable, this.events::bindingsSwept);
		this.outbox = this.stores.outbox(context);
		this.outbox.connect(context, (partition, entries, timestamp, waitedFor) -> context.forward(new Record<>(null,
				new CommandBatch(partition, entries), timestamp,
				SentAt.add(CommandBatch.headers(waitedFor, this.policy))),
				TO_OWNER_COMMANDS));
		this.promptCommits.connect(context, this.outbox);
		this.applied = this.stores.appliedInput(context, this.events::inputPassedOver);
		// last: a task whose init failed never processes
		this.active.started(STORE, context.taskId().partition(), this);
	}

	@Override
	public void close() {
		if (this.context != null) {
			this.active.stopped(STORE, this.context.taskId().partition(), this);
		}
	}

	@Override
	public void process(Record<Object, Object> record) {
		if (!this.applied.firstTime(this.context.recordMetadata())) {
			// applied before: the group's committed offset went back behind this task's state
			return;
		}
		// a claim entered its topic when it was made; a verdict is timed by its claim too, though it waited for both
		// stages' commits: under load the first record after a commit is often a fresh verdict while claims back up
		// behind it, and timed from its sending it would switch the guard against a backlog off
		this.promptCommits.processing(record.timestamp());
		if (record.value() instanceof Feedback feedback) {
			applyVerdicts(record, feedback.batch());
			return;
		}
		// anything else is a raw record of the claims topic
		ClaimValidator.Validation validation = this.validator.validate((byte[]) record.key(), (byte[]) record.value());
		if (!validation.valid()) {
			deadLetter(record, validation.rejection());
			return;
		}
		int partition = this.context.taskId().partition();
		if (!this.placement.home((byte[]) record.key(), partition)) {
			reroute(record);
			return;
		}
		boolean waitedFor = ClaimHeaders.isWaitedFor(record.headers());
		boolean erasure = ClaimHeaders.isErasure(record.headers());
		ClaimCondition condition;
		try {
			condition = ClaimHeaders.condition(record.headers());
		}
		catch (IllegalArgumentException ex) {
			deadLetter(record, ClaimRejection.INVALID_CONDITION);
			return;
		}
		if (condition != null && erasure) {
			deadLetter(record, ClaimRejection.INVALID_CONDITION);
			return;
		}
		if (erasure) {
			if (validation.value() != null) {
				deadLetter(record, ClaimRejection.ERASE_NOT_TOMBSTONE);
				return;
			}
			this.waitedFor = waitedFor;
			try {
				this.events.keyStage(this.stage.erase(validation.key(), record.timestamp(), partition));
			}
			finally {
				this.waitedFor = false;
			}
			if (waitedFor) {
				// the value stage can start erasing once the commands are out of this task's transaction
				this.promptCommits.askSoon();
			}
			return;
		}
		KeyStage.Outcome outcome;
		this.waitedFor = waitedFor;
		try {
			outcome = this.stage.apply(validation.key(), validation.value(), record.timestamp(), partition,
					this.context.currentStreamTimeMs(), condition);
		}
		finally {
			this.waitedFor = false;
		}
		this.events.keyStage(outcome);
		if (outcome == KeyStage.Outcome.CLAIMED && waitedFor) {
			// someone waits for the ruling, which needs the command out of this task's transaction now
			this.promptCommits.askSoon();
		}
		else if (waitedFor) {
			// a release (or one whose condition was not met), or a claim the key already made: its outcome is in the
			// store now
			this.bell.ring();
		}
		if (outcome == KeyStage.Outcome.TOO_OLD) {
			deadLetter(record, ClaimRejection.CLAIM_TOO_OLD);
		}
		else if (outcome == KeyStage.Outcome.BEING_ERASED) {
			deadLetter(record, ClaimRejection.KEY_BEING_ERASED);
		}
	}

	/**
	 * Sends a claims record read on another partition than its key's to its key's partition, where the key's other
	 * records are applied: a key applied on two partitions could hold two values, and lookups would not find it.
	 */
	private void reroute(Record<Object, Object> record) {
		RecordMetadata source = this.context.recordMetadata().orElse(null);
		if (source == null || this.placement.rerouted(source)) {
			// it was sent to its key's partition already and is not there: never round again
			deadLetter(record, ClaimRejection.WRONG_PARTITION);
			return;
		}
		this.events.rerouted();
		if (warnedRerouting.compareAndSet(false, true)) {
			logger.warn("Claims arrive on partitions of '" + source.topic() + "' other than their keys' (the first at "
					+ "partition " + source.partition() + ", offset " + source.offset() + ", its key's partition "
					+ KeyPartitions.of((byte[]) record.key(), this.placement.claimsPartitions()) + "): each goes to its "
					+ "key's partition through '" + this.placement.reroutedTopic() + "', a record and a commit more. "
					+ "Producers that partition by Kafka's default partitioner (murmur2 of the key; librdkafka: "
					+ "partitioner=murmur2_random) spare it (valueguard_claims_rerouted_total counts them)");
		}
		this.context.forward(record.withHeaders(DeadLetterHeaders.rerouted(record.headers(), source)), TO_REROUTED);
	}

	private void deadLetter(Record<Object, Object> record, ClaimRejection rejection) {
		this.events.rejected(rejection);
		RecordMetadata source = this.context.recordMetadata().orElse(null);
		this.context.forward(record.withHeaders(DeadLetterHeaders.of(record.headers(), rejection, source,
				this.placement.rerouted(source))), TO_DLQ);
	}

	private void applyVerdicts(Record<Object, Object> record, @Nullable VerdictBatch batch) {
		if (batch == null) {
			skipForeign("value");
			return;
		}
		long now = this.context.currentSystemTimeMs();
		boolean changed = false;
		for (VerdictBatch.Entry entry : batch.entries()) {
			// a verdict in the single-message format names its key in the record key
			String key = (entry.key() != null) ? entry.key() : (String) record.key();
			if (key == null) {
				skipForeign("key");
				continue;
			}
			KeyStage.Outcome outcome = this.stage.verdict(key, entry.verdict(), now);
			changed |= outcome == KeyStage.Outcome.EVICTED || outcome == KeyStage.Outcome.GRANTED
					|| outcome == KeyStage.Outcome.ERASED;
			this.events.keyStage(outcome);
		}
		// an eviction, a grant or an erasure's end is waited for (docs/design.md, "An eviction takes three commits")
		if (changed) {
			this.promptCommits.askNow();
			// a waiting caller's ruling may be the key's record now: a refusal or a grant under first-wins
			this.bell.ring();
		}
	}

	private void skipForeign(String missing) {
		ForeignRecords.skip(this.context, "a verdict", missing, "the eviction-feedback topic");
	}

	private final class Effects implements KeyStage.Effects {

		@Override
		public void bound(String key, String value, long timestamp) {
			emit(TO_BINDINGS, key, value, timestamp);
		}

		@Override
		public void unbound(String key, long timestamp) {
			emit(TO_BINDINGS, key, null, timestamp);
		}

		@Override
		public void evicted(EvictionEvent event) {
			// the claim that decided the eviction: the winner's, or the late claim's own
			long decidedAt = (event.reason() == Verdict.Reason.SUPERSEDED) ? event.evictedByTimestamp()
					: event.claimTimestamp();
			KeyStageProcessor.this.events.evicted(event, event.evictionTimestamp() - decidedAt);
			emit(TO_EVICTIONS, event.key(), event, decidedAt);
		}

		@Override
		public void command(String value, OwnerCommand command) {
			int partition = KeyPartitions.of(value, KeyStageProcessor.this.commandPartitions);
			KeyStageProcessor.this.outbox.add(partition, new CommandBatch.Entry(value, command),
					CommandBatch.sizeOf(value, command), command.timestamp(), KeyStageProcessor.this.waitedFor);
		}

		@Override
		public int eraseEverywhere(OwnerCommand erasure) {
			int partitions = KeyStageProcessor.this.commandPartitions;
			for (int partition = 0; partition < partitions; partition++) {
				KeyStageProcessor.this.outbox.add(partition, new CommandBatch.Entry(CommandBatch.NO_VALUE, erasure),
						CommandBatch.sizeOf(CommandBatch.NO_VALUE, erasure), erasure.timestamp(),
						KeyStageProcessor.this.waitedFor);
			}
			return partitions;
		}

		private void emit(String output, String key, @Nullable Object value, long timestamp) {
			KeyStageProcessor.this.context.forward(new Record<>(key, value, timestamp), output);
		}

	}

}
