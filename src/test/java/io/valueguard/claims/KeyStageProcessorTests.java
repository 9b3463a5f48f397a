package io.valueguard.claims;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.RulingBell;
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
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.StoreBuilder;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.willAnswer;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * The key stage's processor around {@link KeyStage}, where the topology tests cannot see: when it asks Kafka Streams
 * to commit. Their driver commits after every record, so asking makes no difference there.
 */
class KeyStageProcessorTests {

	private static final long COMMIT_INTERVAL = 100;

	private final ProcessorSupplier<Object, Object, Object, Object> supplier;

	private final Map<String, KeyClaim> claims = new HashMap<>();

	/** The tasks' commits, wall clock and punctuations. */
	private final TaskCommits commits = new TaskCommits();

	/** What the bindings store held for {@code ann} each time the bell rang. */
	private final List<@Nullable KeyClaim> heardAtRing = new ArrayList<>();

	private final RulingBell bell = new RulingBell();

	private final ActivePartitions active = new ActivePartitions();

	/** One claims partition: every key is at home wherever these tests read it. */
	private static final KeyStageProcessor.Placement ANY_PARTITION = new KeyStageProcessor.Placement(1,
			"valueguard-rerouted-claims");

	KeyStageProcessorTests() {
		ValueGuardProperties properties = TestProperties.of(Map.of());
		this.bell.listen(() -> this.heardAtRing.add(this.claims.get("ann")));
		this.supplier = KeyStageProcessor.supplier(
				new ClaimValidator(properties.limits(), ClaimFormat.of(properties.claims())), KeyStageEvents.NONE,
				this.bell, this.active, properties.store(), properties.policy(), Retention.OFF, ANY_PARTITION, 6, null);
	}

	@BeforeEach
	void holdClaims() {
		for (String key : List.of("ann", "bob", "cid", "dan")) {
			this.claims.put(key, new KeyClaim("desk-" + key, 10, true));
		}
	}

	@Test
	void shouldNameEveryStoreWithAChangelogForStartUpToCreateItsTopic() {
		Set<StoreBuilder<?>> stores = this.supplier.stores();

		// a store missing here would have no topic while an earlier build leads the group: a rolling upgrade stalls
		assertThat(stores.stream().filter(StoreBuilder::loggingEnabled).map(StoreBuilder::name))
			.containsExactlyInAnyOrderElementsOf(KeyStageTopology.changelogged());
		assertThat(stores.stream().filter(StoreBuilder::loggingEnabled).map(StoreBuilder::logConfig))
			.allSatisfy((config) -> assertThat(config)
				.isEqualTo(TestProperties.of(Map.of()).store().compaction()));
	}

	@Test
	void shouldSayItsPartitionProcessesHereFromItsInitUntilItsClose() {
		Processor<Object, Object, Object, Object> processor = this.supplier.get();
		assertThat(this.active.processing(KeyStageProcessor.STORE, 4)).isFalse();

		processor.init(context(4));
		assertThat(this.active.processing(KeyStageProcessor.STORE, 4)).isTrue();
		processor.close();

		assertThat(this.active.processing(KeyStageProcessor.STORE, 4)).isFalse();
	}

	@Test
	void shouldAskForACommitHalfAnIntervalAfterTheLastWhenVerdictsEvict() {
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = started(context);

		evict(processor, "ann", 1_000);
		evict(processor, "bob", 1_010);
		evict(processor, "cid", 1_000 + COMMIT_INTERVAL / 2 - 1);
		verify(context, times(1)).commit();
		// evictions are not retried: the scheduled commit is at most an interval away
		assertThat(this.commits.punctuations()).isEmpty();

		evict(processor, "dan", 1_000 + COMMIT_INTERVAL / 2);
		verify(context, times(2)).commit();
	}

	@Test
	void shouldNotAskForACommitWhenVerdictsAreStale() {
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = started(context);
		this.claims.put("ann", new KeyClaim("desk-ann", 20, true));

		evict(processor, "ann", 1_000);

		verify(context, never()).commit();
	}

	@Test
	void shouldRingTheBellOnceVerdictsChangedAKeyNotForStaleOnes() {
		Processor<Object, Object, Object, Object> processor = started(context(0));
		this.claims.put("bob", new KeyClaim("desk-bob", 20, true));
		evict(processor, "bob", 1_000);
		assertThat(this.heardAtRing).isEmpty();

		evict(processor, "ann", 1_010);

		// rung once the eviction is in the store, where a caller waiting for the ruling looks
		assertThat(this.heardAtRing).singleElement().extracting(KeyClaim::bound).isEqualTo(false);
	}

	@Test
	void shouldRingTheBellForAWaitedForReleaseButNotForAClaimAwaitingTheValueStage() {
		Processor<Object, Object, Object, Object> processor = started(context(0));
		claim(processor, "eve", true, 2_000);
		release(processor, "ann", false, 2_010);
		assertThat(this.heardAtRing).isEmpty();
		this.claims.put("ann", new KeyClaim("desk-ann", 10, true));

		release(processor, "ann", true, 2_020);

		assertThat(this.heardAtRing).singleElement().extracting(KeyClaim::value).isNull();
	}

	@Test
	void shouldShareTheLimitBetweenTheTasksOfAStage() {
		// a commit takes every task of the thread along, so one task's commit serves the other's evictions too
		ProcessorContext<Object, Object> first = context(0);
		ProcessorContext<Object, Object> second = context(1);
		Processor<Object, Object, Object, Object> one = started(first);
		Processor<Object, Object, Object, Object> other = started(second);

		evict(one, "ann", 1_000);
		evict(other, "bob", 1_040);

		verify(first, times(1)).commit();
		verify(second, never()).commit();
	}

	@Test
	void shouldAskForACommitWhenSomeoneWaitsForTheClaimsRuling() {
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = started(context);

		claim(processor, "dan", false, 1_000);
		verify(context, never()).commit();
		claim(processor, "eve", true, 2_000);
		verify(context, times(1)).commit();
	}

	/** The value stage can start erasing only once the erase commands are out of this task's transaction. */
	@Test
	void shouldAskForACommitWhenSomeoneWaitsForAnErasure() {
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = started(context);

		erase(processor, "dan", false, 1_000);
		verify(context, never()).commit();
		erase(processor, "eve", true, 2_000);
		verify(context, times(1)).commit();
	}

	@Test
	void shouldAskAgainForAWaitedForClaimOnceTheThrottleAllows() {
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = started(context);
		claim(processor, "eve", true, 2_000);

		// within half an interval of that commit: not now, but as soon as allowed, not at the scheduled commit
		claim(processor, "fay", true, 2_030);
		claim(processor, "gus", true, 2_040);
		verify(context, times(1)).commit();
		assertThat(this.commits.punctuations()).containsOnlyKeys(Duration.ofMillis(COMMIT_INTERVAL / 2 - 30));

		this.commits.punctuate(2_000 + COMMIT_INTERVAL / 2);
		verify(context, times(2)).commit();
		assertThat(this.commits.punctuations()).isEmpty();
	}

	@Test
	void shouldNotAskAgainWhenAScheduledCommitTookTheClaimAlong() {
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = started(context);
		claim(processor, "eve", true, 2_000);
		claim(processor, "fay", true, 2_030);
		assertThat(this.commits.punctuations()).hasSize(1);

		this.commits.at(2_035);
		this.commits.scheduledCommit();

		assertThat(this.commits.punctuations()).isEmpty();
		verify(context, times(1)).commit();
	}

	@Test
	void shouldAskAgainAfterTheShorterPromptCommitIntervalWhenOneIsSet() {
		ValueGuardProperties properties = TestProperties
			.of(Map.of("valueguard.streams.prompt-commit-interval", "20ms"));
		ProcessorSupplier<Object, Object, Object, Object> supplier = KeyStageProcessor.supplier(
				new ClaimValidator(properties.limits(), ClaimFormat.of(properties.claims())), KeyStageEvents.NONE,
				this.bell, this.active, properties.store(), properties.policy(), Retention.OFF, ANY_PARTITION, 6,
				properties.streams().promptCommitInterval());
		ProcessorContext<Object, Object> context = context(0);
		Processor<Object, Object, Object, Object> processor = supplier.get();
		processor.init(context);

		claim(processor, "eve", true, 2_000);
		claim(processor, "fay", true, 2_019);
		verify(context, times(1)).commit();
		// sign-ups that follow each other closely each leave with a commit of their own
		claim(processor, "gus", true, 2_020);
		verify(context, times(2)).commit();
		// the retry fay's claim had asked for is not needed any more
		assertThat(this.commits.punctuations()).isEmpty();
	}

	/** Processes a raw claims record of {@code key}, with the waiting header or without. */
	private void claim(Processor<Object, Object, Object, Object> processor, String key, boolean waitedFor, long now) {
		claimsRecord(processor, key, ("desk-" + key).getBytes(StandardCharsets.UTF_8), waitedFor, now);
	}

	/** Processes a tombstone of {@code key} from the claims topic, with the waiting header or without. */
	private void release(Processor<Object, Object, Object, Object> processor, String key, boolean waitedFor,
			long now) {
		claimsRecord(processor, key, null, waitedFor, now);
	}

	/** Processes an erasure of {@code key} from the claims topic, with the waiting header or without. */
	private void erase(Processor<Object, Object, Object, Object> processor, String key, boolean waitedFor, long now) {
		this.commits.at(now);
		RecordHeaders headers = headers(waitedFor);
		headers.add(ClaimHeaders.ERASE, "true".getBytes(StandardCharsets.UTF_8));
		processor.process(new Record<>(key.getBytes(StandardCharsets.UTF_8), null, now, headers));
	}

	private void claimsRecord(Processor<Object, Object, Object, Object> processor, String key, byte @Nullable [] value,
			boolean waitedFor, long now) {
		this.commits.at(now);
		processor.process(new Record<>(key.getBytes(StandardCharsets.UTF_8), value, now, headers(waitedFor)));
	}

	private static RecordHeaders headers(boolean waitedFor) {
		RecordHeaders headers = new RecordHeaders();
		if (waitedFor) {
			headers.add(ClaimHeaders.WAITING, "true".getBytes(StandardCharsets.UTF_8));
		}
		return headers;
	}

	private Processor<Object, Object, Object, Object> started(ProcessorContext<Object, Object> context) {
		Processor<Object, Object, Object, Object> processor = this.supplier.get();
		processor.init(context);
		return processor;
	}

	/** Processes, at {@code now} by the wall clock, the value stage's verdict that the key's claim at 10 lost. */
	private void evict(Processor<Object, Object, Object, Object> processor, String key, long now) {
		this.commits.at(now);
		Verdict verdict = new Verdict("desk-" + key, 10, "zoe", 20, Verdict.Reason.SUPERSEDED, 0);
		VerdictBatch batch = new VerdictBatch(0, List.of(new VerdictBatch.Entry(key, verdict)));
		processor.process(new Record<>(null, new KeyStageProcessor.Feedback(batch), 20));
	}

	@SuppressWarnings("unchecked")
	private ProcessorContext<Object, Object> context(int partition) {
		ProcessorContext<Object, Object> context = mock(ProcessorContext.class);
		WriteBehindTable<String, KeyClaim> bindings = mock(WriteBehindTable.class);
		given(bindings.get(anyString())).willAnswer((call) -> this.claims.get(call.<String>getArgument(0)));
		willAnswer((call) -> this.claims.put(call.getArgument(0), call.getArgument(1))).given(bindings)
			.put(anyString(), any());
		doReturn(bindings).when(context).getStateStore(KeyStageProcessor.PENDING_WRITES);
		Outbox<?> outbox = mock(Outbox.class);
		doReturn(outbox).when(context).getStateStore(KeyStageProcessor.OUTBOX);
		doReturn(firstTimeInput()).when(context).getStateStore(StageStores.appliedInputOf(KeyStageProcessor.STORE));
		this.commits.wire(context, outbox, COMMIT_INTERVAL);
		given(context.taskId()).willReturn(new TaskId(0, partition));
		return context;
	}


	/** Marks of applied input that take every record as new: these tests never replay input. */
	private static AppliedInput firstTimeInput() {
		AppliedInput applied = mock(AppliedInput.class);
		given(applied.firstTime(any())).willReturn(true);
		return applied;
	}

}
