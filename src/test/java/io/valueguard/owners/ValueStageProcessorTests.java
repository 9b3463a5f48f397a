package io.valueguard.owners;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.RulingBell;
import io.valueguard.messages.SentAt;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.store.ActivePartitions;
import io.valueguard.store.AppliedInput;
import io.valueguard.store.Outbox;
import io.valueguard.store.Retention;
import io.valueguard.store.StageStores;
import io.valueguard.store.WriteBehindTable;
import io.valueguard.support.TaskCommits;
import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.willAnswer;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.atLeast;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * The value stage's processor around {@link ValueStage}, where the topology tests cannot see: when it asks Kafka
 * Streams to commit. Under first-wins a ruling reaches the key only as a verdict, which leaves with the commit.
 */
class ValueStageProcessorTests {

	private static final long COMMIT_INTERVAL = 100;

	private final Map<String, Owner> owners = new HashMap<>();

	/** The task's commits, wall clock and punctuations. */
	private final TaskCommits commits = new TaskCommits();

	/** What the owners store held for each value when the bell rang. */
	private final List<@Nullable Owner> heardAtRing = new ArrayList<>();

	private final RulingBell bell = new RulingBell();

	private final ActivePartitions active = new ActivePartitions();

	/** The rules of the key stages of batches that named another rule than the processor's policy, one per batch. */
	private final List<ClaimPolicy> foreignRules = new ArrayList<>();

	private final ValueStageEvents events = new ValueStageEvents() {

		@Override
		public void foreignRule(ClaimPolicy rule) {
			ValueStageProcessorTests.this.foreignRules.add(rule);
		}

	};

	/** The rule the helpers' batches name: the policy the processor was started with, unless a test says otherwise. */
	private ClaimPolicy rule = ClaimPolicy.LATEST_WINS;

	ValueStageProcessorTests() {
		this.bell.listen(() -> this.heardAtRing.add(this.owners.get("desk-1")));
	}

	@Test
	void shouldNameEveryStoreWithAChangelogForStartUpToCreateItsTopic() {
		ValueGuardProperties properties = TestProperties.of(Map.of());
		Set<StoreBuilder<?>> stores = ValueStageProcessor
			.supplier(this.events, this.bell, this.active, properties.store(), ClaimPolicy.LATEST_WINS, Retention.OFF,
					null)
			.stores();

		// a store missing here would have no topic while an earlier build leads the group: a rolling upgrade stalls
		assertThat(stores.stream().filter(StoreBuilder::loggingEnabled).map(StoreBuilder::name))
			.containsExactlyInAnyOrderElementsOf(ValueStageTopology.changelogged());
		assertThat(stores.stream().filter(StoreBuilder::loggingEnabled).map(StoreBuilder::logConfig))
			.allSatisfy((config) -> assertThat(config).isEqualTo(properties.store().compaction()));
	}

	@Test
	void shouldSayItsPartitionProcessesHereFromItsInitUntilItsClose() {
		assertThat(this.active.processing(ValueStageProcessor.STORE, 2)).isFalse();

		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context(), ClaimPolicy.LATEST_WINS);
		assertThat(this.active.processing(ValueStageProcessor.STORE, 2)).isTrue();
		processor.close();

		assertThat(this.active.processing(ValueStageProcessor.STORE, 2)).isFalse();
	}

	@Test
	void shouldRingTheBellOnceItHasRuledOnACommandSomeoneWaitsFor() {
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context(), ClaimPolicy.LATEST_WINS);
		claim(processor, "ann", "desk-1", false, 2_000);
		assertThat(this.heardAtRing).isEmpty();

		claim(processor, "bob", "desk-1", true, 2_010);

		// rung after the ruling is in the store, where the waiting caller looks
		assertThat(this.heardAtRing).singleElement().extracting(Owner::key).isEqualTo("bob");
		assertThat(this.foreignRules).as("batches of a key stage with the same policy").isEmpty();
	}

	@Test
	void shouldAskAgainForAWaitedForRulingOnceTheThrottleAllows() {
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.FIRST_WINS);
		claim(processor, "ann", "desk-1", true, 2_000);
		verify(context, times(1)).commit();

		// within half an interval of that commit: a grant someone waits for asks again as soon as allowed
		claim(processor, "bob", "desk-2", true, 2_020);
		verify(context, times(1)).commit();
		assertThat(this.commits.punctuations()).containsOnlyKeys(Duration.ofMillis(COMMIT_INTERVAL / 2 - 20));

		this.commits.punctuate(2_000 + COMMIT_INTERVAL / 2);
		verify(context, times(2)).commit();
		assertThat(this.commits.punctuations()).isEmpty();
	}

	@Test
	void shouldNotTakeACommandThatWaitedForTheKeyStagesCommitForABacklog() {
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.FIRST_WINS);
		claim(processor, "ann", "desk-1", true, 2_000);

		// bob's claim, made at 2,010, waited for the key stage's commit, which sent it at 2,045: 15 ms in this topic
		this.commits.at(2_060);
		CommandBatch batch = new CommandBatch(0,
				List.of(new CommandBatch.Entry("desk-2", OwnerCommand.claim("bob", 2_010, 0))));
		processor.process(new Record<>(null, batch, 2_010,
				SentAt.add(CommandBatch.headers(true, ClaimPolicy.FIRST_WINS), 2_045)));

		// half an interval after the last commit, not a quarter of one after this command
		verify(context, times(2)).commit();
		assertThat(this.commits.punctuations()).isEmpty();
	}

	@Test
	void shouldLeaveARulingNobodyWaitsForToTheNextCommit() {
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.FIRST_WINS);
		claim(processor, "ann", "desk-1", false, 2_000);
		verify(context, times(1)).commit();

		claim(processor, "bob", "desk-2", false, 2_020);

		verify(context, times(1)).commit();
		assertThat(this.commits.punctuations()).isEmpty();
	}

	@Test
	void shouldNotAskForACommitWhenNoRulingTravelsBack() {
		// latest-wins binds a claim at once: the key learns nothing from a grant
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.LATEST_WINS);

		claim(processor, "ann", "desk-1", true, 2_000);

		verify(context, never()).commit();
		assertThat(this.commits.punctuations()).isEmpty();
	}

	@Test
	void shouldRuleAClaimByTheRuleOfTheKeyStageThatSentIt() {
		// a rolling restart to first-wins: the key stage runs it, the value stage does not yet
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.LATEST_WINS);
		this.rule = ClaimPolicy.FIRST_WINS;

		claim(processor, "ann", "desk-1", false, 2_000);
		claim(processor, "bob", "desk-1", false, 2_200);

		// the first-wins key stage hears its grant and its refusal; latest-wins would have given bob the desk
		assertThat(this.owners.get("desk-1")).extracting(Owner::key).isEqualTo("ann");
		assertThat(verdicts(context)).extracting((entry) -> entry.key(), (entry) -> entry.verdict().reason())
			.containsExactly(tuple("ann", Verdict.Reason.GRANTED), tuple("bob", Verdict.Reason.REFUSED));
		// and each ruling leaves at once, as under first-wins: both travel back
		verify(context, times(2)).commit();
		// and the instances' different policies are counted, once per batch
		assertThat(this.foreignRules).containsExactly(ClaimPolicy.FIRST_WINS, ClaimPolicy.FIRST_WINS);
	}

	@Test
	void shouldRuleALatestWinsClaimSoEvenWhereFirstWinsRuns() {
		// a rolling restart to latest-wins: a key stage that runs it already bound the claim and awaits no grant
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.FIRST_WINS);
		claim(processor, "ann", "desk-1", false, 2_000);
		this.rule = ClaimPolicy.LATEST_WINS;

		claim(processor, "bob", "desk-1", false, 2_200);

		assertThat(this.owners.get("desk-1")).extracting(Owner::key).isEqualTo("bob");
		assertThat(verdicts(context)).extracting((entry) -> entry.key(), (entry) -> entry.verdict().reason())
			.containsExactly(tuple("ann", Verdict.Reason.GRANTED), tuple("ann", Verdict.Reason.SUPERSEDED));
		assertThat(this.foreignRules).containsExactly(ClaimPolicy.LATEST_WINS);
	}

	/**
	 * With retention off an erasure's pass starts with its command, and on a store with nothing left to read it ends
	 * there: the report to the key is in the outbox, and the task asks for a commit rather than leave it to the next
	 * scheduled one, during which the key's claims are refused.
	 */
	@Test
	void shouldAskForACommitOnceAnErasureIsDone() {
		ProcessorContext<String, VerdictBatch> context = context();
		Processor<String, CommandBatch, String, VerdictBatch> processor = started(context, ClaimPolicy.LATEST_WINS);
		this.commits.at(2_000);
		CommandBatch batch = new CommandBatch(0,
				List.of(new CommandBatch.Entry(CommandBatch.NO_VALUE, OwnerCommand.erase("mallory", 1_900, 0))));

		processor.process(new Record<>(null, batch, 1_900, CommandBatch.headers(true, this.rule)));

		assertThat(verdicts(context)).extracting((entry) -> entry.key(), (entry) -> entry.verdict().reason())
			.containsExactly(tuple("mallory", Verdict.Reason.ERASED));
		verify(context).commit();
		// nothing scheduled: no slice is left, and the commit was allowed at once
		assertThat(this.commits.punctuations()).isEmpty();
	}

	/** The verdicts the processor put in its outbox, in order. */
	@SuppressWarnings("unchecked")
	private static List<VerdictBatch.Entry> verdicts(ProcessorContext<String, VerdictBatch> context) {
		Outbox<VerdictBatch.Entry> outbox = (Outbox<VerdictBatch.Entry>) context
			.getStateStore(ValueStageProcessor.OUTBOX);
		ArgumentCaptor<VerdictBatch.Entry> entries = ArgumentCaptor.forClass(VerdictBatch.Entry.class);
		verify(outbox, atLeast(0)).add(anyInt(), entries.capture(), anyInt(), anyLong(), anyBoolean());
		return entries.getAllValues();
	}

	private Processor<String, CommandBatch, String, VerdictBatch> started(ProcessorContext<String, VerdictBatch> context,
			ClaimPolicy policy) {
		ValueGuardProperties properties = TestProperties.of(Map.of());
		this.rule = policy;
		Processor<String, CommandBatch, String, VerdictBatch> processor = ValueStageProcessor
			.supplier(this.events, this.bell, this.active, properties.store(), policy, Retention.OFF, null)
			.get();
		processor.init(context);
		return processor;
	}

	/** Processes, at {@code now} by the wall clock, a batch with {@code key}'s claim of {@code value}. */
	private void claim(Processor<String, CommandBatch, String, VerdictBatch> processor, String key, String value,
			boolean waitedFor, long now) {
		this.commits.at(now);
		CommandBatch batch = new CommandBatch(0, List.of(new CommandBatch.Entry(value, OwnerCommand.claim(key, now, 0))));
		processor.process(new Record<>(null, batch, now, CommandBatch.headers(waitedFor, this.rule)));
	}

	@SuppressWarnings("unchecked")
	private ProcessorContext<String, VerdictBatch> context() {
		ProcessorContext<String, VerdictBatch> context = mock(ProcessorContext.class);
		WriteBehindTable<String, Owner> pending = mock(WriteBehindTable.class);
		given(pending.get(anyString())).willAnswer((call) -> this.owners.get(call.<String>getArgument(0)));
		willAnswer((call) -> this.owners.put(call.getArgument(0), call.getArgument(1))).given(pending)
			.put(anyString(), any());
		doReturn(pending).when(context).getStateStore(StageStores.pendingWritesOf(ValueStageProcessor.STORE));
		// what the sweep reads of the store: no entry beyond those the table holds
		KeyValueStore<String, Owner> store = mock(KeyValueStore.class);
		given(store.range(any(), any())).willReturn(mock(KeyValueIterator.class));
		doReturn(store).when(context).getStateStore(ValueStageProcessor.STORE);
		KeyValueStore<String, Erasure> erasures = mock(KeyValueStore.class);
		given(erasures.all()).willReturn(mock(KeyValueIterator.class));
		doReturn(erasures).when(context).getStateStore(ValueStageProcessor.ERASURES);
		Outbox<?> outbox = mock(Outbox.class);
		doReturn(outbox).when(context).getStateStore(ValueStageProcessor.OUTBOX);
		AppliedInput applied = mock(AppliedInput.class);
		given(applied.firstTime(any())).willReturn(true);
		doReturn(applied).when(context).getStateStore(StageStores.appliedInputOf(ValueStageProcessor.STORE));
		this.commits.wire(context, outbox, COMMIT_INTERVAL);
		given(context.currentStreamTimeMs()).willAnswer((call) -> this.commits.now());
		given(context.taskId()).willReturn(new TaskId(0, 2));
		return context;
	}

}
