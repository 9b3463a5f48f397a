package io.valueguard.owners;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.ForeignRecords;
import io.valueguard.messages.RulingBell;
import io.valueguard.messages.SentAt;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.store.ActivePartitions;
import io.valueguard.store.AppliedInput;
import io.valueguard.store.CommitThrottle;
import io.valueguard.store.Outbox;
import io.valueguard.store.PromptCommits;
import io.valueguard.store.Retention;
import io.valueguard.store.StageStores;
import io.valueguard.store.StoreTable;
import io.valueguard.store.Sweep;
import io.valueguard.store.WriteBehindTable;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.jspecify.annotations.Nullable;

/** Runs {@link ValueStage} in a stream task, over the task's partition of the {@code owners} store. */
final class ValueStageProcessor implements Processor<String, CommandBatch, String, VerdictBatch> {

	/** Name of the value stage's store: value to its top claim. */
	static final String STORE = "owners";

	/** Name of the store that holds the task's verdicts until they go out in batches. */
	static final String OUTBOX = "verdict-outbox";

	/** Name of the store of the erasures the task has yet to carry out, by erased key. */
	static final String ERASURES = "erasures";

	/** The stores of a task with a changelog topic, as {@link #supplier} declares them. */
	static List<String> changelogged() {
		List<String> stores = new ArrayList<>(StageStores.changelogged(STORE));
		stores.add(ERASURES);
		return List.copyOf(stores);
	}

	static ProcessorSupplier<String, CommandBatch, String, VerdictBatch> supplier(ValueStageEvents events,
			RulingBell bell, ActivePartitions active, ValueGuardProperties.Store settings, ClaimPolicy policy,
			Retention retention, @Nullable Duration promptCommitInterval) {
		StageStores<Owner, VerdictBatch.Entry> stores = StageStores.of(settings.type().supplier(STORE),
				new Owner.Serde(), settings.recentEntries(), OUTBOX, settings.compaction());
		CommitThrottle promptCommits = new CommitThrottle(promptCommitInterval);
		StoreBuilder<KeyValueStore<String, Erasure>> erasures = Stores.keyValueStoreBuilder(
				settings.type().supplier(ERASURES), Serdes.String(), new Erasure.Serde())
			.withLoggingEnabled(settings.compaction());
		return new ProcessorSupplier<>() {

			@Override
			public Processor<String, CommandBatch, String, VerdictBatch> get() {
				return new ValueStageProcessor(stores, events, bell, active, policy, retention,
						new PromptCommits(promptCommits));
			}

			@Override
			public Set<StoreBuilder<?>> stores() {
				Set<StoreBuilder<?>> all = new HashSet<>(stores.all());
				all.add(erasures);
				return all;
			}

		};
	}

	private static final Log logger = LogFactory.getLog(ValueStageProcessor.class);

	private final StageStores<Owner, VerdictBatch.Entry> stores;

	private final ValueStageEvents events;

	private final RulingBell bell;

	private final ActivePartitions active;

	private final ClaimPolicy policy;

	private final Retention retention;

	private final PromptCommits promptCommits;

	private @Nullable ProcessorContext<String, VerdictBatch> context;

	private @Nullable ValueStage stage;

	/** Erasures are carried out by passes over the owners store; without retention they run only while one waits. */
	private @Nullable Sweep<Owner> sweep;

	private @Nullable AppliedInput applied;

	/** Whether this task said that a key stage runs another policy: the counter goes on, the log says it once. */
	private boolean warnedForeignRule;

	private ValueStageProcessor(StageStores<Owner, VerdictBatch.Entry> stores, ValueStageEvents events,
			RulingBell bell, ActivePartitions active, ClaimPolicy policy, Retention retention,
			PromptCommits promptCommits) {
		this.stores = stores;
		this.events = events;
		this.bell = bell;
		this.active = active;
		this.policy = policy;
		this.retention = retention;
		this.promptCommits = promptCommits;
	}

	@Override
	public void init(ProcessorContext<String, VerdictBatch> context) {
		this.context = context;
		WriteBehindTable<String, Owner> owners = this.stores.connect(context);
		Outbox<VerdictBatch.Entry> outbox = this.stores.outbox(context);
		outbox.connect(context, (partition, entries, timestamp, waitedFor) -> context
			.forward(new Record<>(null, new VerdictBatch(partition, entries), timestamp)));
		this.promptCommits.connect(context, outbox);
		this.applied = this.stores.appliedInput(context, this.events::commandsPassedOver);
		// a verdict's record time is when the claim that decided it was made; a waiting caller sees the key stage
		// apply it, before that stage commits, so no verdict batch is marked as waited for
		ValueStage.Verdicts verdicts = (key, verdict) -> {
			outbox.add(verdict.keyPartition(), new VerdictBatch.Entry(key, verdict), VerdictBatch.sizeOf(key, verdict),
					verdict.decidedAt(), false);
			if (verdict.reason() == Verdict.Reason.ERASED) {
				// the key's claims are refused until this report reaches it, and a caller often waits for its end;
				// erasures are rare, so each report asks as a waited-for ruling does
				this.promptCommits.askSoon();
			}
		};
		Erasures erasures = erasures(context.getStateStore(ERASURES), verdicts);
		this.stage = new ValueStage(owners, verdicts, this.policy, this.retention, erasures);
		this.sweep = this.stores.sweep(context, this.retention, owners, this.stage::forgettable, erasures,
				this.events::ownersSwept);
		// last: a task whose init failed never processes
		this.active.started(STORE, context.taskId().partition(), this);
	}

	@Override
	public void close() {
		if (this.context != null) {
			this.active.stopped(STORE, this.context.taskId().partition(), this);
		}
	}

	private Erasures erasures(KeyValueStore<String, Erasure> store, ValueStage.Verdicts verdicts) {
		Erasures erasures = new Erasures(new StoreTable<>(store), verdicts, this.policy);
		try (KeyValueIterator<String, Erasure> waiting = store.all()) {
			waiting.forEachRemaining((erasure) -> erasures.restore(erasure.key, erasure.value));
		}
		return erasures;
	}

	@Override
	public void process(Record<String, CommandBatch> record) {
		if (!this.applied.firstTime(this.context.recordMetadata())) {
			// applied before: the group's committed offset went back behind this task's state
			return;
		}
		// a command waited for the key stage's commit before this stage could read it: timed from the claim, that wait
		// would look like a backlog here
		this.promptCommits.processing(SentAt.of(record.headers(), record.timestamp()));
		if (record.value() == null) {
			skipForeign("value");
			return;
		}
		boolean travelsBack = false;
		boolean erasureQueued = false;
		ClaimPolicy rule = CommandBatch.ruleOf(record.headers(), this.policy);
		if (rule != this.policy) {
			foreignRule(rule);
		}
		for (CommandBatch.Entry entry : record.value().entries()) {
			// a command in the single-message format names its value in the record key
			String value = (entry.value() != null) ? entry.value() : record.key();
			if (value == null) {
				skipForeign("key");
				continue;
			}
			ValueStage.Outcome outcome = this.stage.apply(value, entry.command(), this.context.currentStreamTimeMs(),
					rule);
			this.events.valueStage(outcome);
			erasureQueued |= outcome == ValueStage.Outcome.ERASURE_QUEUED;
			// under first-wins the key learns its ruling only from the verdict, which leaves with the commit
			travelsBack |= outcome == ValueStage.Outcome.REFUSED
					|| (rule == ClaimPolicy.FIRST_WINS && outcome == ValueStage.Outcome.OWNED);
		}
		if (erasureQueued) {
			// after the batch: its later commands are ruled with the erasure as asked for, whenever the pass comes
			this.sweep.wake();
		}
		boolean waitedFor = CommandBatch.isWaitedFor(record.headers());
		if (waitedFor) {
			// the owners store shows the ruling now, before the commit: a caller waiting for a BOUND need not wait
			// longer (a ruling is a fold over committed commands, so a replay after a failure makes the same one); a
			// refusal is answered once its verdict has reached the key
			this.bell.ring();
		}
		if (travelsBack && waitedFor) {
			this.promptCommits.askSoon();
		}
		else if (travelsBack) {
			this.promptCommits.askNow();
		}
	}

	/** Counts a batch of a key stage that runs another policy, and says so once per task. */
	private void foreignRule(ClaimPolicy rule) {
		this.events.foreignRule(rule);
		if (!this.warnedForeignRule) {
			this.warnedForeignRule = true;
			logger.warn("Claims from a key stage that runs " + rule + " reach this value stage, which runs "
					+ this.policy + " (task " + this.context.taskId() + "): instances run different "
					+ "valueguard.policy, as while a rolling restart switches it. Each claim is ruled by its key "
					+ "stage's rule, but a switch this way can leave values held by keys that are not bound: stop "
					+ "every instance, then start them all with one policy (docs/design.md, \"Switching policy\")");
		}
	}

	private void skipForeign(String missing) {
		ForeignRecords.skip(this.context, "a command", missing, "the owner-commands topic");
	}

}
