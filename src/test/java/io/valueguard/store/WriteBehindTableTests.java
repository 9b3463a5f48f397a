package io.valueguard.store;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.doThrow;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The table in a real task, over a RocksDB store with a changelog: a processor runs each input record's commands
 * ({@code put:key:value}, {@code get:key} through the table, {@code stored:key} straight from the store, {@code fill}
 * for as many writes of other keys as go straight to the store after a commit, comma separated) and forwards what it
 * read as {@code key=value}. The driver commits after every input record, which is when the table writes.
 */
@ExtendWith(OutputCaptureExtension.class)
class WriteBehindTableTests {

	private static final String CHANGELOG = "write-behind-test-entries-changelog";

	private final TopologyTestDriver driver;

	private final TestInputTopic<String, String> input;

	private final TestOutputTopic<String, String> reads;

	private final TestOutputTopic<String, String> changelog;

	/** How many entries the tables of the tests' stage remember together. */
	private static final int RECENT = 100;

	/** Builds the tables of one stage, as Kafka Streams builds one per task: they share {@link #RECENT}. */
	private final StoreBuilder<WriteBehindTable<String, String>> tables = WriteBehindTable.builder("entries", RECENT, null);

	private final WriteBehindTable<String, String> table = this.tables.build();

	@SuppressWarnings("unchecked")
	private final InternalProcessorContext<String, String> context = mock(InternalProcessorContext.class);

	@SuppressWarnings("unchecked")
	private final KeyValueStore<String, String> store = mock(KeyValueStore.class);

	private final Cancellable checkSchedule = mock(Cancellable.class);

	private final Commands commands = new Commands();

	WriteBehindTableTests(@TempDir Path stateDirectory) {
		StreamsBuilder builder = new StreamsBuilder();
		builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
			.process(this.commands)
			.to("reads", Produced.with(Serdes.String(), Serdes.String()));
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "write-behind-test");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
		config.put(StreamsConfig.STATE_DIR_CONFIG, stateDirectory.toString());
		this.driver = new TopologyTestDriver(builder.build(), config, Instant.ofEpochMilli(1_000_000));
		this.input = this.driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
		this.reads = this.driver.createOutputTopic("reads", new StringDeserializer(), new StringDeserializer());
		this.changelog = this.driver.createOutputTopic(CHANGELOG, new StringDeserializer(), new StringDeserializer());
	}

	@AfterEach
	void close() {
		this.driver.close();
	}

	@Test
	void shouldWriteStraightToTheStoreWhileACommitHasFewWrites() {
		this.input.pipeInput("x", "put:a:1,stored:a", 500);
		this.input.pipeInput("x", "put:a:2,stored:a", 600);

		assertThat(this.reads.readValuesToList()).containsExactly("a=1", "a=2");
		assertThat(this.changelog.readValuesToList()).containsExactly("1", "2");
	}

	@Test
	void shouldWriteAnEntryOnceWhenTheTaskCommitsOnceManyWritesWait() {
		this.input.pipeInput("x", "fill,put:a:1,put:b:1,put:a:2,put:a:3,stored:a", 500);

		assertThat(this.reads.readValuesToList()).containsExactly("a=null");
		assertThat(changelogOf("a", "b")).containsExactlyInAnyOrder(tuple("a", "3", 500L), tuple("b", "1", 500L));
		assertThat(this.driver.<String, String>getKeyValueStore("entries").get("a")).isEqualTo("3");
	}

	@Test
	void shouldReadItsOwnWritesBeforeTheStoreHasThem() {
		this.input.pipeInput("x", "put:a:1", 500);
		this.input.pipeInput("x", "fill,put:a:2,get:a,stored:a,get:b", 600);

		assertThat(this.reads.readValuesToList()).containsExactly("a=2", "a=1", "b=null");
	}

	@Test
	void shouldDeleteLikeItWritesAndTellTheSweepWhatIsNewerThanTheStore() {
		this.input.pipeInput("x", "put:a:1,put:b:1", 500);
		this.reads.readValuesToList();
		this.changelog.readValuesToList();
		this.input.pipeInput("x", "fill,put:a:2,delete:b,current:a,stored:a,current:b,get:b,stored:b", 600);

		assertThat(this.reads.readValuesToList()).containsExactly("a=2", "a=1", "b=null", "b=null", "b=1");
		assertThat(changelogOf("a", "b")).containsExactlyInAnyOrder(tuple("a", "2", 600L), tuple("b", null, 600L));
		assertThat(this.driver.<String, String>getKeyValueStore("entries").get("b")).isNull();
	}

	@Test
	void shouldWriteEachEntryWithTheTimestampOfTheRecordThatMadeIt() {
		this.input.pipeInput("x", "fill,put:a:1", 500);
		this.input.pipeInput("x", "fill,put:a:2", 700);

		assertThat(changelogOf("a")).containsExactly(tuple("a", "1", 500L), tuple("a", "2", 700L));
	}

	@Test
	void shouldWriteAsSoonAsTheMostEntriesWait() {
		StringBuilder commands = new StringBuilder("fill,");
		for (int i = 0; i < WriteBehindTable.MAX_PENDING; i++) {
			commands.append("put:k").append(i).append(":v,");
		}
		commands.append("put:k0:w,stored:k0,stored:k1");

		this.input.pipeInput("x", commands.toString(), 500);

		// the last of MAX_PENDING writes wrote them all, before the record was done; k0's second write waited
		assertThat(this.reads.readValuesToList()).containsExactly("k0=v", "k1=v");
		assertThat(this.driver.<String, String>getKeyValueStore("entries").get("k0")).isEqualTo("w");
	}

	private List<Tuple> changelogOf(String... keys) {
		Set<String> wanted = Set.of(keys);
		return this.changelog.readRecordsToList()
			.stream()
			.filter((record) -> wanted.contains(record.key()))
			.map((record) -> tuple(record.key(), record.value(), record.timestamp()))
			.toList();
	}

	@Test
	void shouldWriteWhatWaitedTheLongestDelayWhenTheTaskDoesNotCommit() {
		Punctuator check = connectToMocks();
		long delay = WriteBehindTable.MAX_DELAY.toMillis();
		fill(this.table);
		when(this.context.currentSystemTimeMs()).thenReturn(10_000L);
		this.table.put("a", "1");
		when(this.context.currentSystemTimeMs()).thenReturn(10_000L + delay / 2);
		this.table.put("b", "1");

		check.punctuate(10_000L + delay - 1);
		verify(this.store, never()).put("a", "1");
		check.punctuate(10_000L + delay);

		verify(this.store).put("a", "1");
		verify(this.store).put("b", "1");
		assertThat(this.table.pending()).isZero();
	}

	/**
	 * A punctuation makes Kafka Streams commit its task: one that fired on an idle task made it commit an empty
	 * transaction every interval, so the check is there only while writes wait.
	 */
	@Test
	void shouldScheduleItsCheckOnlyWhileWritesWait() {
		connectToMocks();
		fill(this.table);
		verify(this.context, never()).schedule(any(), any(), any());

		this.table.put("a", "1");
		this.table.put("b", "1");
		verify(this.context, times(1)).schedule(eq(WriteBehindTable.CHECK_INTERVAL),
				eq(PunctuationType.WALL_CLOCK_TIME), any());
		verify(this.checkSchedule, never()).cancel();

		this.table.flushCache();
		verify(this.checkSchedule).cancel();
		this.table.put("c", "1");
		verify(this.context, times(2)).schedule(eq(WriteBehindTable.CHECK_INTERVAL),
				eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	@Test
	void shouldKeepWritesWaitingAfterACommitWithMoreWritesThanGoStraightToTheStore() {
		connectToMocks();
		fill(this.table);
		this.table.put("a", "1");
		verify(this.store, never()).put("a", "1");

		this.table.flushCache();
		verify(this.store).put("a", "1");
		this.table.put("b", "1");

		verify(this.store, never()).put("b", "1");
		assertThat(this.table.pending()).isOne();
	}

	@Test
	void shouldWriteStraightToTheStoreAgainAfterACommitWithFewWrites() {
		connectToMocks();
		fill(this.table);
		this.table.put("a", "1");
		this.table.flushCache();
		this.table.put("b", "1");
		this.table.flushCache();
		verify(this.store).put("b", "1");

		this.table.put("c", "1");

		verify(this.store).put("c", "1");
		assertThat(this.table.pending()).isZero();
	}

	/**
	 * A store's delete() reads the entry to return it: a random read of an old entry, which the sweep paid for every
	 * entry it forgot. A null value deletes without it, straight away or after waiting.
	 */
	@Test
	void shouldDeleteWithoutReadingTheEntryFirst() {
		connectToMocks();
		this.table.delete("a");
		fill(this.table);
		this.table.delete("b");
		this.table.flushCache();

		verify(this.store).put("a", null);
		verify(this.store).put("b", null);
		verify(this.store, never()).delete(anyString());
		verify(this.store, never()).get(anyString());
	}

	/**
	 * What sets the sweep's cadence: the entries put, and not the deletes. What paces it: the puts that may have added
	 * an entry, those of keys the table did not know to hold one (read or written lately, not deleted since).
	 */
	@Test
	void shouldCountTheEntriesPutAndThoseThatMayHaveAddedOneForTheSweep() {
		connectToMocks();
		when(this.store.get("b")).thenReturn("stored");
		this.table.put("a", "1");
		this.table.put("a", "2");
		this.table.delete("a");
		this.table.put("a", "3");
		this.table.get("b");
		this.table.put("b", "4");
		this.table.get("c");
		this.table.put("c", "5");

		assertThat(this.table.written()).isEqualTo(5);
		assertThat(this.table.added()).as("a twice, after a delete; c, which the store did not hold").isEqualTo(3);
	}

	/**
	 * The scheduled write, with the whole cluster gone: the changelog send gives up waiting for metadata, and the
	 * write stays, whole, for the next attempt.
	 */
	@Test
	void shouldKeepWritesWhenKafkaDoesNotAnswerInTime() {
		Punctuator check = connectToMocks();
		fill(this.table);
		this.table.put("a", "1");
		doThrow(new StreamsException("Exception caught while punctuating",
				new TimeoutException("Topic changelog not present in metadata after 60000 ms.")))
			.doNothing()
			.when(this.store)
			.put("a", "1");
		long delay = WriteBehindTable.MAX_DELAY.toMillis();

		check.punctuate(delay);
		assertThat(this.table.pending()).isOne();
		check.punctuate(delay + 100);

		verify(this.store, times(2)).put("a", "1");
		assertThat(this.table.pending()).isZero();
	}

	@Test
	void shouldDropWhatWaitsWhenTheTaskFails() {
		connectToMocks();
		fill(this.table);
		this.table.put("a", "1");

		this.table.clearCache();
		this.table.flushCache();

		verify(this.store, never()).put("a", "1");
		assertThat(this.table.get("a")).isNull();
	}

	@Test
	void shouldReadWhatItReadOrWroteLatelyWithoutTheStore() {
		connectToMocks();
		when(this.store.get("a")).thenReturn("1");

		assertThat(this.table.get("a")).isEqualTo("1");
		assertThat(this.table.get("a")).isEqualTo("1");
		this.table.put("b", "2");
		assertThat(this.table.get("b")).isEqualTo("2");

		verify(this.store, times(1)).get("a");
		verify(this.store, never()).get("b");
	}

	@Test
	void shouldForgetWhatItReadOnceItRemembersTheMostEntries() {
		connectToMocks();
		storeHoldsEveryKey();
		this.table.get("a");

		readOthers("other-", RECENT);

		assertThat(this.table.get("a")).isEqualTo("stored-a");
		verify(this.store, times(2)).get("a");
	}

	@Test
	void shouldReadAPendingWriteAfterForgettingTheRecentEntries() {
		connectToMocks();
		storeHoldsEveryKey();
		fill(this.table);
		this.table.put("a", "1");

		readOthers("other-", RECENT);

		assertThat(this.table.get("a")).isEqualTo("1");
		verify(this.store, never()).get("a");
	}

	@Test
	@SuppressWarnings("unchecked")
	void shouldShareTheStagesLimitWithTheTablesOfItsOtherTasks() {
		connectToMocks();
		storeHoldsEveryKey();
		WriteBehindTable<String, String> other = this.tables.build();
		other.connect(mock(InternalProcessorContext.class), mock(KeyValueStore.class));
		this.table.get("a");
		readOthers("other-", RECENT / 2 - 1);
		this.table.get("a");
		verify(this.store, times(1)).get("a");

		this.table.get("one-too-many");
		this.table.get("a");
		verify(this.store, times(2)).get("a");

		other.close();
		readOthers("more-", RECENT / 2 - 1);
		this.table.get("a");
		verify(this.store, times(2)).get("a");
	}

	/** The store goes back to the task's last commit; what the table remembers of later writes must not outlive it. */
	@Test
	void shouldForgetWhatItRemembersWhenTheTaskFails() {
		connectToMocks();
		this.table.put("a", "1");
		when(this.store.get("a")).thenReturn("0");

		this.table.clearCache();

		assertThat(this.table.get("a")).isEqualTo("0");
	}

	@Test
	void shouldNotLookForAKeyTheStoreDidNotHoldWhenTheTaskConnected() {
		WriteBehindTable<String, String> filtering = connectFilteringTo("a");
		when(this.store.get("a")).thenReturn("1");

		assertThat(filtering.get("b")).isNull();
		assertThat(filtering.get("a")).isEqualTo("1");
		verify(this.store, never()).get("b");
	}

	@Test
	void shouldLookForAKeyItWroteOnceItForgotIt() {
		WriteBehindTable<String, String> filtering = connectFilteringTo();
		filtering.put("a", "1");
		when(this.store.get("a")).thenReturn("1");
		for (int i = 0; i < RECENT; i++) {
			filtering.put("other-" + i, "2");
		}

		assertThat(filtering.get("a")).isEqualTo("1");
		verify(this.store).get("a");
	}

	/** A table connected again while a write waits: the write reaches the store after its keys were read. */
	@Test
	@SuppressWarnings("unchecked")
	void shouldKnowTheKeysOfWritesThatWaitWhenATaskConnects() {
		connectToMocks();
		WriteBehindTable<String, String> filtering = connectFilteringTo();
		fill(filtering);
		filtering.put("a", "1");
		when(this.store.all()).thenReturn(mock(KeyValueIterator.class));
		filtering.connect(this.context, this.store);

		filtering.flushCache();
		when(this.store.get("a")).thenReturn("1");
		for (int i = 0; i < RECENT; i++) {
			filtering.put("other-" + i, "2");
		}

		assertThat(filtering.get("a")).isEqualTo("1");
	}

	/**
	 * Over Kafka Streams' typed store the table reads the serialized keys beneath it, without decoding a value, and
	 * knows every key the store holds, whatever its characters.
	 */
	@Test
	void shouldKnowEveryKeyOfATypedStoreWithoutDecodingItsValues() {
		AtomicInteger decoded = new AtomicInteger();
		Serde<String> values = Serdes.serdeFrom(new StringSerializer(), (topic, data) -> {
			decoded.incrementAndGet();
			return new String(data, StandardCharsets.UTF_8);
		});
		KeyValueStore<String, String> held = Stores
			.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("held"), Serdes.String(), values)
			.withLoggingDisabled()
			.build();
		held.init(new MockProcessorContext<String, String>().getStateStoreContext(), held);
		List<String> keys = List.of("ascii", "ключ-ü", "🔑-key", "");
		keys.forEach((key) -> held.put(key, "v-" + key));
		WriteBehindTable<String, String> filtering = WriteBehindTable.<String, String>builder("filtering", RECENT,
				new StringDeserializer())
			.build();

		filtering.connect(this.context, held);

		assertThat(decoded).hasValue(0);
		for (String key : keys) {
			assertThat(filtering.get(key)).isEqualTo("v-" + key);
		}
		assertThat(filtering.get("absent")).isNull();
		assertThat(decoded).hasValue(keys.size());
	}

	/**
	 * What a processor gets is Kafka Streams' typed store in a decorator: the table reads the keys beneath both, and
	 * decodes no value doing it.
	 */
	@Test
	void shouldKnowTheKeysOfTheStoreAProcessorGetsWhenItConnectsAgain() {
		this.input.pipeInput("k", "put:a:1,put:b:2");

		int decodedBefore = this.commands.decoded.get();
		this.input.pipeInput("k", "reconnect,fill,get:a,get:b,get:c");

		assertThat(this.reads.readValuesToList()).containsExactly("a=1", "b=2", "c=null");
		// the two reads: none while the keys were read
		assertThat(this.commands.decoded.get() - decodedBefore).isEqualTo(2);
	}

	/** Reading a large store into the filters takes part of a task's start: the operator sees how much. */
	@Test
	void shouldSayHowManyKeysATaskReadIntoItsFiltersAndHowLongItTook(CapturedOutput output) {
		when(this.store.name()).thenReturn("bindings");
		when(this.context.taskId()).thenReturn(new TaskId(0, 3));

		connectFilteringTo("a", "b");

		assertThat(output.getOut()).containsPattern("Read 2 keys of store bindings of task 0_3 into its key filters in "
				+ "\\d+ ms");
	}

	@Test
	void shouldSayNothingOfAnEmptyStore(CapturedOutput output) {
		connectFilteringTo();

		assertThat(output.getOut()).doesNotContain("key filters");
	}

	/** The store goes back to its last commit, or is restored: until the task connects again, only it knows. */
	@Test
	void shouldLookForEveryKeyAfterTheTaskFails() {
		WriteBehindTable<String, String> filtering = connectFilteringTo();
		when(this.store.get("restored")).thenReturn("1");

		filtering.clearCache();

		assertThat(filtering.get("restored")).isEqualTo("1");
	}

	/** What lookups of many keys read: the entries of the keys of the table's own partition, as the store has them. */
	@Test
	@SuppressWarnings("unchecked")
	void shouldAnswerAQueryForManyKeysWithTheEntriesOfItsPartition() {
		this.input.pipeInput("x", "put:a:1,put:b:2", 500);
		WriteBehindTable<String, String> queried = (WriteBehindTable<String, String>) this.driver
			.getStateStore("entries-pending-writes");

		QueryResult<Map<String, String>> read = query(queried,
				new TableEntries<>(Map.of(0, List.of("a", "b", "c"), 1, List.of("x"))));

		assertThat(read.isSuccess()).as("%s", read).isTrue();
		assertThat(read.getResult()).containsExactlyInAnyOrderEntriesOf(Map.of("a", "1", "b", "2"));
	}

	/** Lookups read the store: a write still pending is not in it yet, for many keys as for one. */
	@Test
	void shouldAnswerAQueryFromTheStoreNotFromThePendingWrites() {
		connectToMocks();
		when(this.context.taskId()).thenReturn(new TaskId(0, 2));
		when(this.store.isOpen()).thenReturn(true);
		when(this.store.get("a")).thenReturn("stored");
		fill(this.table);
		this.table.put("a", "pending");

		QueryResult<Map<String, String>> read = query(this.table, new TableEntries<>(Map.of(2, List.of("a"))));

		assertThat(read.getResult()).containsExactly(Map.entry("a", "stored"));
		assertThat(this.table.get("a")).isEqualTo("pending");
	}

	@Test
	void shouldRefuseQueriesWhileNoTaskProcessesThroughIt() {
		TableEntries<String, String> entries = new TableEntries<>(Map.of(0, List.of("a")));
		assertThat(query(this.table, entries).getFailureReason()).isEqualTo(FailureReason.NOT_PRESENT);

		connectToMocks();
		when(this.context.taskId()).thenReturn(new TaskId(0, 0));
		when(this.store.isOpen()).thenReturn(false);
		assertThat(query(this.table, entries).getFailureReason()).isEqualTo(FailureReason.NOT_PRESENT);

		when(this.store.isOpen()).thenReturn(true);
		when(this.store.get("a")).thenThrow(new InvalidStateStoreException("Store entries is currently closed"));
		assertThat(query(this.table, entries).getFailureReason()).isEqualTo(FailureReason.STORE_EXCEPTION);

		this.table.close();
		assertThat(query(this.table, entries).getFailureReason()).isEqualTo(FailureReason.NOT_PRESENT);
	}

	@Test
	void shouldLeaveOtherQueriesUnanswered() {
		connectToMocks();

		QueryResult<String> read = this.table.query(KeyQuery.withKey("a"), PositionBound.unbounded(),
				new QueryConfig(false));

		assertThat(read.getFailureReason()).isEqualTo(FailureReason.UNKNOWN_QUERY_TYPE);
		verify(this.store, never()).get(any());
	}

	private static QueryResult<Map<String, String>> query(WriteBehindTable<String, String> table,
			TableEntries<String, String> entries) {
		return table.query(entries, PositionBound.unbounded(), new QueryConfig(false));
	}

	private void storeHoldsEveryKey() {
		when(this.store.get(anyString())).thenAnswer((read) -> "stored-" + read.getArgument(0));
	}

	/** Reads {@code count} keys through {@link #table} that the test does not look at again. */
	private void readOthers(String prefix, int count) {
		for (int i = 0; i < count; i++) {
			this.table.get(prefix + i);
		}
	}

	/** A table that filters keys, connected to the mocked task and store, which holds {@code keys}. */
	@SuppressWarnings("unchecked")
	private WriteBehindTable<String, String> connectFilteringTo(String... keys) {
		Iterator<KeyValue<String, String>> held = Arrays.stream(keys).map((key) -> KeyValue.pair(key, "held")).iterator();
		KeyValueIterator<String, String> all = mock(KeyValueIterator.class);
		when(all.hasNext()).thenAnswer((call) -> held.hasNext());
		when(all.next()).thenAnswer((call) -> held.next());
		when(this.store.all()).thenReturn(all);
		WriteBehindTable<String, String> filtering = WriteBehindTable.<String, String>builder("filtering", RECENT,
				new StringDeserializer())
			.build();
		filtering.connect(this.context, this.store);
		verify(all).close();
		return filtering;
	}

	/** Connects {@link #table} to a mocked task and store; returns its check, which runs once a write waits. */
	private Punctuator connectToMocks() {
		AtomicReference<Punctuator> check = new AtomicReference<>();
		when(this.context.schedule(eq(WriteBehindTable.CHECK_INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), any()))
			.thenAnswer((call) -> {
				check.set(call.getArgument(2));
				return this.checkSchedule;
			});
		this.table.connect(this.context, this.store);
		return (now) -> check.get().punctuate(now);
	}

	/** As many writes of other keys as go straight to the store after a commit: the next ones wait. */
	private static void fill(StateTable<String, String> table) {
		for (int i = 0; i < WriteBehindTable.WRITE_THROUGH; i++) {
			table.put("fill-" + i, "x");
		}
	}

	private static final class Commands implements ProcessorSupplier<String, String, String, String> {

		/** How many values the store decoded. */
		private final AtomicInteger decoded = new AtomicInteger();

		private final StoreBuilder<KeyValueStore<String, String>> store = Stores
			.keyValueStoreBuilder(Stores.persistentKeyValueStore("entries"), Serdes.String(),
					Serdes.serdeFrom(new StringSerializer(), (topic, data) -> {
						this.decoded.incrementAndGet();
						return new String(data, StandardCharsets.UTF_8);
					}));

		private final StoreBuilder<WriteBehindTable<String, String>> table = WriteBehindTable
			.builder("entries-pending-writes", RECENT, new StringDeserializer());

		@Override
		public Set<StoreBuilder<?>> stores() {
			return Set.of(this.store, this.table);
		}

		@Override
		public Processor<String, String, String, String> get() {
			return new Processor<>() {

				private ProcessorContext<String, String> context;

				private KeyValueStore<String, String> store;

				private WriteBehindTable<String, String> table;

				@Override
				public void init(ProcessorContext<String, String> context) {
					this.context = context;
					this.store = context.getStateStore("entries");
					this.table = context.getStateStore("entries-pending-writes");
					this.table.connect(context, this.store);
				}

				@Override
				public void process(Record<String, String> record) {
					List<String> read = new ArrayList<>();
					for (String command : record.value().split(",")) {
						String[] fields = command.split(":");
						switch (fields[0]) {
							case "fill" -> fill(this.table);
							case "put" -> this.table.put(fields[1], fields[2]);
							case "reconnect" -> this.table.connect(this.context, this.store);
							case "get" -> read.add(fields[1] + "=" + this.table.get(fields[1]));
							case "stored" -> read.add(fields[1] + "=" + this.store.get(fields[1]));
							case "delete" -> this.table.delete(fields[1]);
							case "current" -> read.add(fields[1] + "=" + this.table.current(fields[1],
									this.store.get(fields[1])));
							default -> throw new IllegalArgumentException(command);
						}
					}
					read.forEach((entry) -> this.context.forward(record.withValue(entry)));
				}

			};
		}

	}

}
