package io.valueguard.store;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.valueguard.store.MapTable;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/** The sweep reads its store a slice at a time, in key order, from where it stopped, and starts over at the end. */
class SweepTests {

	/** How far behind the stream time an entry's timestamp may be: 10. */
	private static final Retention RETENTION = new Retention(10);

	/** Entries: key to timestamp; forgettable when more than {@link #RETENTION} behind the stream time. */
	private final NavigableMap<String, Long> entries = new TreeMap<>();

	private final AtomicInteger read = new AtomicInteger();

	private final StateTable<String, Long> table = new MapTable<>(this.entries);

	/** The entries the task's table wrote: what sets the sweep's cadence. */
	private final AtomicLong written = new AtomicLong();

	/** Those of them that may have added an entry: what paces the sweep. */
	private final AtomicLong added = new AtomicLong();

	private final Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION,
			(timestamp, streamTime) -> streamTime - timestamp > 10, null, (forgot) -> {
			}, this.written::get, this.added::get, 3, System::nanoTime);

	@Test
	void shouldForgetEveryForgettableEntryWithinOnePassReadingOneSliceAtATime() {
		for (int i = 0; i < 10; i++) {
			this.entries.put("key-" + i, (i % 3 == 0) ? 0L : 95L);
		}

		int forgotten = 0;
		for (int slice = 0; slice < 4; slice++) {
			this.read.set(0);
			forgotten += this.sweep.sweep(100);
			assertThat(this.read.get()).as("entries read by slice %d", slice).isLessThanOrEqualTo(3 + 1);
		}

		assertThat(forgotten).isEqualTo(4);
		assertThat(this.entries).hasSize(6).allSatisfy((key, timestamp) -> assertThat(timestamp).isEqualTo(95L));
	}

	/**
	 * A task that adds entries faster than a slice a second reads: the slice grows with its writes, so that a pass
	 * still comes round, up to the most a slice reads.
	 */
	@Test
	void shouldReadTwiceAsManyEntriesAsTheTaskWroteSinceTheLastSlice() {
		for (int i = 0; i < 40; i++) {
			this.entries.put(String.format("key-%02d", i), (i < 20) ? 0L : 95L);
		}
		this.added.addAndGet(5);

		this.read.set(0);
		assertThat(this.sweep.sweep(100)).isEqualTo(10);
		assertThat(this.read.get()).as("entries read after five writes").isEqualTo(Sweep.PACE * 5);

		this.read.set(0);
		assertThat(this.sweep.sweep(100)).isEqualTo(3);
		assertThat(this.read.get()).as("entries read after no writes").isEqualTo(3);

		this.added.addAndGet(Sweep.MAX_SLICE);
		this.read.set(0);
		assertThat(this.sweep.sweep(100)).isEqualTo(7);
		assertThat(this.read.get()).as("to the end of the store, within the most a slice reads").isEqualTo(27);
		assertThat(this.entries).hasSize(20).allSatisfy((key, timestamp) -> assertThat(timestamp).isEqualTo(95L));
	}

	/** A slice's own writes (a rewrite's) are not the task's: counted, they would drive the pace on and on. */
	@Test
	void shouldNotCountItsOwnWritesTowardsItsPace() {
		for (int i = 0; i < 7; i++) {
			this.entries.put("key-" + i, 2L * i + 1);
		}
		NegateOdd negateOdd = new NegateOdd();
		negateOdd.asked = true;
		StateTable<String, Long> counting = new StateTable<>() {

			@Override
			public Long get(String key) {
				return SweepTests.this.table.get(key);
			}

			@Override
			public void put(String key, Long value) {
				SweepTests.this.written.incrementAndGet();
				SweepTests.this.added.incrementAndGet();
				SweepTests.this.table.put(key, value);
			}

			@Override
			public void delete(String key) {
				SweepTests.this.table.delete(key);
			}

		};
		Sweep<Long> sweep = new Sweep<>(store(), counting, Retention.OFF, null, negateOdd, (forgot) -> {
		}, this.written::get, this.added::get, 3, System::nanoTime);

		sweep.sweep(100);
		assertThat(this.added).as("the first slice's rewrites").hasValue(3);
		this.read.set(0);
		sweep.sweep(100);

		// the three entries after the last slice's last key, which the range starts at
		assertThat(this.read.get()).isEqualTo(3 + 1);
	}

	@Test
	void shouldStartOverAtTheEndAndDecideOnTheTablesNewestWrite() {
		this.entries.put("a", 0L);
		this.entries.put("b", 95L);
		this.sweep.sweep(100);
		assertThat(this.entries).containsOnlyKeys("b");

		// written again since: a newer write is never forgotten for an older one's age
		this.entries.put("a", 99L);
		this.entries.put("c", 0L);
		write(2);
		this.sweep.sweep(100);
		assertThat(this.entries).containsOnlyKeys("a", "b");
	}

	@Test
	void shouldPassForARewriteWithRetentionOffAndEndItOnlyAfterAFullPass() {
		for (int i = 0; i < 7; i++) {
			this.entries.put("key-" + i, (long) i);
		}
		// a rewrite that negates odd timestamps, fixed at the start of each pass; deletes 4
		NegateOdd negateOdd = new NegateOdd();
		List<String> events = negateOdd.events;
		Sweep<Long> sweep = new Sweep<>(store(), this.table, Retention.OFF, null, negateOdd, (forgot) -> {
		}, this.written::get, this.added::get, 3, System::nanoTime);

		this.read.set(0);
		sweep.sweep(100);
		assertThat(this.read.get()).as("no pass without work, with retention off").isZero();

		negateOdd.asked = true;
		sweep.sweep(100);
		sweep.sweep(100);
		assertThat(events).containsExactly("start");
		sweep.sweep(100);
		assertThat(events).containsExactly("start", "end");
		assertThat(this.entries).containsOnly(Map.entry("key-0", 0L), Map.entry("key-1", -1L),
				Map.entry("key-2", 2L), Map.entry("key-3", -3L), Map.entry("key-5", -5L), Map.entry("key-6", 6L));

		this.read.set(0);
		sweep.sweep(100);
		assertThat(this.read.get()).as("done: no further pass").isZero();
	}

	@Test
	void shouldBeScheduledWithRetentionOffOnlyWhileARewriteWaits() {
		for (int i = 0; i < 7; i++) {
			this.entries.put("key-" + i, (long) i);
		}
		NegateOdd negateOdd = new NegateOdd();
		Sweep<Long> sweep = new Sweep<>(store(), this.table, Retention.OFF, null, negateOdd, (forgot) -> {
		}, this.written::get, this.added::get, 3, System::nanoTime);
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		Cancellable scheduled = mock(Cancellable.class);
		when(context.schedule(any(), any(), any())).thenReturn(scheduled);
		when(context.currentStreamTimeMs()).thenReturn(100L);

		// an idle task: Kafka Streams would commit after every punctuation, for nothing
		sweep.schedule(context);
		sweep.wake();
		verify(context, never()).schedule(any(), any(), any());

		// an erasure: the pass starts at once with a tenth of a second's reads (one of three), then goes on by the
		// schedule; a second wake while it is under way neither reads nor schedules again
		negateOdd.asked = true;
		sweep.wake();
		sweep.wake();
		assertThat(negateOdd.events).containsExactly("start");
		ArgumentCaptor<Punctuator> slice = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), slice.capture());

		// two slices of three finish the pass over the seven entries; the pass's end cancels the schedule
		slice.getValue().punctuate(1_000);
		verify(scheduled, never()).cancel();
		slice.getValue().punctuate(2_000);
		assertThat(negateOdd.events).containsExactly("start", "end");
		verify(scheduled).cancel();
		assertThat(this.entries).doesNotContainKey("key-4");

		// the next erasure schedules it again
		negateOdd.asked = true;
		sweep.wake();
		verify(context, times(2)).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	/** With retention off a small store's erasure is done when it is asked for, not a scheduled slice later. */
	@Test
	void shouldCarryOutARewriteOfASmallStoreAtOnceWhenWoken() {
		this.entries.put("key-0", 3L);
		this.entries.put("key-1", 4L);
		NegateOdd negateOdd = new NegateOdd();
		Sweep<Long> sweep = new Sweep<>(store(), this.table, Retention.OFF, null, negateOdd, (forgot) -> {
		}, this.written::get, this.added::get, 30, System::nanoTime);
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		when(context.currentStreamTimeMs()).thenReturn(100L);
		sweep.schedule(context);

		negateOdd.asked = true;
		sweep.wake();

		assertThat(negateOdd.events).containsExactly("start", "end");
		assertThat(this.entries).containsExactly(Map.entry("key-0", -3L));
		verify(context, never()).schedule(any(), any(), any());
	}

	/** Retention's passes come at their own pace: an erasure waits for the next, and does not make it read faster. */
	@Test
	void shouldNotReadAtOnceWhenWokenWhileRetentionSweeps() {
		this.entries.put("key-0", 95L);
		NegateOdd negateOdd = new NegateOdd();
		Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION, (timestamp, streamTime) -> false, negateOdd,
				(forgot) -> {
				}, this.written::get, this.added::get, 30, System::nanoTime);
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		when(context.schedule(any(), any(), any())).thenReturn(mock(Cancellable.class));
		when(context.currentStreamTimeMs()).thenReturn(100L);
		sweep.schedule(context);

		negateOdd.asked = true;
		this.read.set(0);
		sweep.wake();

		assertThat(this.read.get()).isZero();
		assertThat(negateOdd.events).isEmpty();
		verify(context).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	/** Metrics see each slice that read anything: its reads, what it forgot, and how long it held up the task. */
	@Test
	void shouldTellEachSliceThatReadWhatItReadAndForgot() {
		for (int i = 0; i < 5; i++) {
			this.entries.put("key-" + i, (i < 2) ? 0L : 95L);
		}
		List<Sweep.Slice> slices = new ArrayList<>();
		Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION, (timestamp, streamTime) -> streamTime - timestamp > 10,
				null, slices::add, this.written::get, this.added::get, 3, System::nanoTime);
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		when(context.currentStreamTimeMs()).thenReturn(100L);
		sweep.schedule(context);
		ArgumentCaptor<Punctuator> slice = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), slice.capture());

		slice.getValue().punctuate(1_000);
		slice.getValue().punctuate(2_000);
		this.entries.clear();
		slice.getValue().punctuate(3_000);

		assertThat(slices).extracting(Sweep.Slice::read, Sweep.Slice::forgotten)
			.containsExactly(tuple(3, 2), tuple(2, 0));
		assertThat(slices).allSatisfy((each) -> assertThat(each.nanos()).isPositive());
	}

	/**
	 * A task that writes is swept the share of a second's reads since the last slice, every tenth of a second, so that
	 * no slice holds its records up for long; back to a slice a second once it writes too little to commit that often.
	 */
	@Test
	void shouldSweepEveryTenthOfASecondWhileTheTaskWrites() {
		for (int i = 0; i < 1_000; i++) {
			this.entries.put(String.format("key-%04d", i), 95L);
		}
		Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION, (timestamp, streamTime) -> streamTime - timestamp > 10,
				null, (slice) -> {
				}, this.written::get, this.added::get, 10, System::nanoTime);
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		Cancellable everySecond = mock(Cancellable.class);
		Cancellable everyTenth = mock(Cancellable.class);
		when(context.schedule(eq(Sweep.INTERVAL), any(), any())).thenReturn(everySecond);
		when(context.schedule(eq(Sweep.BUSY_INTERVAL), any(), any())).thenReturn(everyTenth);
		when(context.currentStreamTimeMs()).thenReturn(100L);
		sweep.schedule(context);
		ArgumentCaptor<Punctuator> slow = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), slow.capture());

		write(Sweep.BUSY_WRITES * 2);
		this.read.set(0);
		slow.getValue().punctuate(1_000);
		assertThat(this.read.get()).as("a second's slice").isEqualTo(Sweep.PACE * Sweep.BUSY_WRITES * 2);
		verify(everySecond).cancel();
		ArgumentCaptor<Punctuator> busy = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Sweep.BUSY_INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), busy.capture());

		write(Sweep.BUSY_WRITES / 10 * 2);
		this.read.set(0);
		busy.getValue().punctuate(1_100);
		// and the last slice's last key, which the range starts at
		assertThat(this.read.get()).as("a tenth's slice").isEqualTo(Sweep.PACE * Sweep.BUSY_WRITES / 10 * 2 + 1);

		write(Sweep.BUSY_WRITES / 2 * 3);
		this.read.set(0);
		busy.getValue().punctuate(1_600);
		assertThat(this.read.get()).as("a slice half a second late")
			.isEqualTo(Sweep.PACE * Sweep.BUSY_WRITES / 2 * 3 + 1);
		verify(everyTenth, never()).cancel();

		write(Sweep.BUSY_WRITES / 10 - 1);
		this.read.set(0);
		busy.getValue().punctuate(1_700);
		assertThat(this.read.get()).as("a tenth's slice after too few writes")
			.isEqualTo(Sweep.PACE * (Sweep.BUSY_WRITES / 10 - 1) + 1);
		verify(everyTenth).cancel();
		verify(context, times(2)).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	/**
	 * A slice stops at its time between two chunks, each read and acted on in full, and the next reads what it did not,
	 * besides its own; a pass's end settles what is owed.
	 */
	@Test
	void shouldStopASliceAtItsTimeAndReadWhatItOwesInTheNext() {
		for (int i = 0; i < 5 * Sweep.CHUNK; i++) {
			this.entries.put(String.format("key-%05d", i), (i % 2 == 0) ? 0L : 95L);
		}
		// each entry read takes 60 µs, until frozen: a chunk takes 60 ms, two go past a slice's time (the second
		// reads its range's first key again)
		AtomicLong nanosPerRead = new AtomicLong(60_000);
		Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION, (timestamp, streamTime) -> streamTime - timestamp > 10,
				null, (slice) -> {
				}, this.written::get, this.added::get, 2 * Sweep.CHUNK + Sweep.CHUNK / 2, () -> this.read.get() * nanosPerRead.get());

		assertThat(sweep.slice(100, 1)).as("two chunks of the first slice's two and a half")
			.isEqualTo(new Sweep.Slice(2 * Sweep.CHUNK, Sweep.CHUNK, (2 * Sweep.CHUNK + 1) * 60_000L, 0));
		assertThat(sweep.slice(100, 1).read()).as("stopped at its time again, owing more").isEqualTo(2 * Sweep.CHUNK);
		assertThat(this.entries).as("every entry read acted on").hasSize(3 * Sweep.CHUNK);

		nanosPerRead.set(0);
		assertThat(sweep.slice(100, 1).read()).as("what is owed, to the end of the store").isEqualTo(Sweep.CHUNK);
		// the retention is 10: a millisecond of stream time asks for PACE x SPAN / 10 reads per entry the last pass left
		assertThat(sweep.slice(101, 1).read()).as("a new pass owes nothing")
			.isEqualTo(Sweep.PACE * Sweep.SPAN * (5 * Sweep.CHUNK / 2) / 10);
	}

	/**
	 * Puts that replace an entry the table knew of add none: a task that writes a lot and adds little is swept at the
	 * least pace, in slices every tenth of a second all the same.
	 */
	@Test
	void shouldPaceItsReadsByTheEntriesTheTaskMayHaveAddedNotByEveryWrite() {
		for (int i = 0; i < 100; i++) {
			this.entries.put(String.format("key-%03d", i), 95L);
		}
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		when(context.schedule(any(), any(), any())).thenReturn(mock(Cancellable.class));
		when(context.currentStreamTimeMs()).thenReturn(100L);
		this.sweep.schedule(context);
		ArgumentCaptor<Punctuator> slow = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), slow.capture());

		this.written.addAndGet(Sweep.BUSY_WRITES * 3);
		this.added.addAndGet(5);
		this.read.set(0);
		slow.getValue().punctuate(1_000);

		assertThat(this.read.get()).as("twice the entries added").isEqualTo(Sweep.PACE * 5);
		verify(context).schedule(eq(Sweep.BUSY_INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	/**
	 * A full pass at a stream time during which the task put nothing leaves only entries it may not forget at that
	 * stream time: the next pass waits for a put or for the stream time to move, so that an idle task's store is not
	 * read over and over.
	 */
	@Test
	void shouldRestAfterAFullPassUntilTheTaskPutsOrItsStreamTimeMoves() {
		for (int i = 0; i < 5; i++) {
			this.entries.put("key-" + i, 95L);
		}
		this.sweep.sweep(100);
		this.sweep.sweep(100);
		this.read.set(0);
		this.sweep.sweep(100);
		assertThat(this.read.get()).as("a full pass done, nothing put, the same stream time").isZero();

		write(1);
		this.sweep.sweep(100);
		assertThat(this.read.get()).as("a put since: a new pass").isEqualTo(Sweep.PACE);
		this.read.set(0);
		this.sweep.sweep(100);
		assertThat(this.read.get()).as("nothing put since, the same stream time: the pass waits").isZero();

		assertThat(this.sweep.sweep(106)).as("the stream time moved: the rest of the pass, where entries may go now")
			.isEqualTo(3);
		this.read.set(0);
		this.sweep.sweep(106);
		assertThat(this.read.get()).as("rests again").isZero();
		assertThat(this.sweep.sweep(107)).isEqualTo(2);
		assertThat(this.entries).isEmpty();
	}

	/**
	 * Once a pass has read the whole store, the sweep reads by the stream time, not by the clock: enough for a pass to
	 * span at most a {@link Sweep#SPAN}th of the retention, counting every entry the last pass left and every one added since it
	 * started, so a task whose stream time moves slowly reads little and one whose stream time stands still reads
	 * nothing unless it adds entries.
	 */
	@Test
	void shouldReadInProportionToTheStreamTimeThatPassedOnceAPassHasReadTheWholeStore() {
		for (int i = 0; i < 100; i++) {
			this.entries.put(String.format("key-%03d", i), (i < 40) ? 0L : 900L);
		}
		Sweep<Long> sweep = new Sweep<>(store(), this.table, new Retention(1_000),
				(timestamp, streamTime) -> streamTime - timestamp > 1_000, null, (slice) -> {
				}, this.written::get, this.added::get, 50, System::nanoTime);

		assertThat(sweep.slice(1_001, 1)).as("the first pass, by the clock").extracting(Sweep.Slice::read,
				Sweep.Slice::forgotten).containsExactly(50, 40);
		assertThat(sweep.slice(1_001, 1).read()).as("the first pass, the stream time still").isEqualTo(50);

		// 60 entries left: each 1/SPAN of the retention, 1,000 / SPAN, reads 2 x 60
		assertThat(sweep.slice(1_006, 1).read()).as("five milliseconds of stream time").isEqualTo(reads(60, 5));
		assertThat(sweep.slice(1_006, 1).read()).as("the stream time still, nothing added").isZero();
		write(5);
		assertThat(sweep.slice(1_006, 1).read()).as("twice the entries added").isEqualTo(Sweep.PACE * 5);
		int streamTime = 1_006;
		int read = reads(60, 5) + Sweep.PACE * 5;
		while (read < 60) {
			streamTime++;
			read += sweep.slice(streamTime, 1).read();
		}
		assertThat(streamTime - 1_001).as("stream time the pass spanned").isLessThanOrEqualTo(1_000 / Sweep.SPAN);

		// the 60 the pass left and the 5 added since it started
		assertThat(sweep.slice(streamTime + 10, 1).read()).as("the next pass, ten milliseconds later")
			.isEqualTo(reads(65, 10));
		assertThat(sweep.slice(streamTime + 10 + 500, 1).read()).as("within the most a slice reads: the rest")
			.isEqualTo(60 - reads(65, 10));
	}

	/**
	 * Each slice says how much of the retention its pass has spanned in stream time, from the first stream time the pass
	 * knew: what tells whether the sweep keeps up (at most a {@link Sweep#SPAN}th while it does).
	 */
	@Test
	void shouldTellHowMuchOfTheRetentionItsPassHasSpanned() {
		for (int i = 0; i < 10; i++) {
			this.entries.put("key-" + i, 0L);
		}
		Sweep<Long> sweep = new Sweep<>(store(), this.table, new Retention(1_000),
				(timestamp, streamTime) -> streamTime - timestamp > 1_000, null, (slice) -> {
				}, this.written::get, this.added::get, 4, System::nanoTime);

		// a task that has processed no record yet has no stream time: the pass's span starts at the first it knows
		assertThat(sweep.slice(-1, 1).span()).isZero();
		assertThat(sweep.slice(500, 1).span()).isZero();
		assertThat(sweep.slice(750, 1).span()).as("the pass's last slice").isEqualTo(0.25);
		// the next pass, by the stream time: 2 x 4 x 10 / 1,000 entries a millisecond
		assertThat(sweep.slice(760, 1).span()).as("the next pass's first slice").isZero();
		assertThat(sweep.slice(770, 1).span()).isEqualTo(0.01);
		assertThat(sweep.slice(860, 1)).as("its last").extracting(Sweep.Slice::read, Sweep.Slice::span)
			.containsExactly(8, 0.1);

		Sweep<Long> off = new Sweep<>(store(), this.table, Retention.OFF, null, new NegateOdd(), (slice) -> {
		}, this.written::get, this.added::get, 4, System::nanoTime);
		assertThat(off.slice(5_000, 1).span()).as("retention off").isZero();
	}

	/** The reads a store of {@code entries} asks for while a retention of 1,000 moves by {@code moved}. */
	private static int reads(int entries, int moved) {
		return reads(entries, moved, 1_000);
	}

	/**
	 * The bound the sweep promises (docs/design.md, "Retention"): once its first pass is done, an entry goes at most
	 * half the retention of stream time after it may, give or take the stream time between two slices, whatever the
	 * task adds, replaces or deletes meanwhile; and the store never outgrows its sweep.
	 */
	@Test
	void shouldForgetEveryEntryWithinHalfTheRetentionOfStreamTimeAfterItMayGo() {
		long seed = System.nanoTime();
		Random random = new Random(seed);
		int retention = 1_000;
		int step = 20;
		Sweep<Long> sweep = new Sweep<>(store(), this.table, new Retention(retention),
				(timestamp, streamTime) -> streamTime - timestamp > retention, null, (slice) -> {
				}, this.written::get, this.added::get, 50, () -> 0L);
		long streamTime = 0;
		int keys = 0;
		int most = 0;
		for (int slice = 0; slice < 5_000; slice++) {
			// quiet spells, bursts, and the stream time standing still
			int phase = (slice / 500) % 3;
			streamTime += (phase == 2 && random.nextBoolean()) ? 0 : random.nextInt(step + 1);
			// in quiet spells the pass must come round for the stream time alone
			int additions = (phase == 1) ? random.nextInt(40) : (random.nextInt(20) == 0) ? 1 : 0;
			for (int i = 0; i < additions; i++) {
				this.entries.put(String.format("key-%08d", random.nextInt(1_000_000)), streamTime - random.nextInt(50));
				keys++;
			}
			write(additions);
			if (!this.entries.isEmpty() && random.nextInt(4) == 0) {
				// the task replaces an entry, which adds none, and deletes another
				this.entries.put(someKey(random), streamTime);
				this.written.incrementAndGet();
				this.entries.remove(someKey(random));
			}
			sweep.slice(streamTime, 1);
			most = Math.max(most, this.entries.size());
			long now = streamTime;
			assertThat(this.entries.values()).as("stream time %d, seed %d", now, seed)
				.allSatisfy((timestamp) -> assertThat(now - timestamp)
					.isLessThanOrEqualTo(retention + retention / 2 + 2L * step));
		}
		assertThat(keys).as("keys the task added").isGreaterThan(5_000);
		assertThat(most).as("the most the store held, seed %d", seed).isLessThan(keys / 3);
	}

	/**
	 * A pass by the stream time may span days of it (a quarter of a retention of a month), and a task that starts or
	 * moves starts its sweep at the store's first key: were its first pass paced by the stream time too, a task
	 * restarted every few days (a weekly deploy) would never reach the store's last keys. So each start's first pass
	 * reads by the clock, and ends within the store's entries over {@link Sweep#SLICE} a second of it (docs/design.md,
	 * "Retention").
	 */
	@Test
	void shouldReadTheWholeStoreByTheClockAfterEachStartHoweverLongTheRetention() {
		int retention = 1_000_000;
		for (int i = 0; i < 500; i++) {
			this.entries.put(String.format("key-%03d", i), (i % 2 == 0) ? 0L : 2_000_000L);
		}
		long streamTime = 2_000_000;
		for (int start = 0; start < 3; start++) {
			// the last task's cursor and counts go with it, as when Kafka Streams builds the processor anew
			Sweep<Long> sweep = new Sweep<>(store(), this.table, new Retention(retention),
					(timestamp, time) -> time - timestamp > retention, null, (slice) -> {
					}, this.written::get, this.added::get, 50, () -> 0L);
			int held = this.entries.size();
			int read = 0;
			for (int slice = 0; slice < (held + 49) / 50; slice++) {
				// a millisecond of stream time a slice: by it alone, a pass over 500 entries would read 1 a slice
				read += sweep.slice(++streamTime, 1).read();
			}
			assertThat(read).as("entries read by the first pass after start %d", start).isEqualTo(held);
			assertThat(this.entries).as("after start %d", start).hasSize(250)
				.allSatisfy((key, timestamp) -> assertThat(timestamp).isEqualTo(2_000_000L));
			// while the task lives on, a pass by the stream time
			assertThat(sweep.slice(++streamTime, 1).read()).as("after the first pass").isEqualTo(reads(250, 1, retention));
			// the store's last key, forgettable from the next start on
			this.entries.put("key-999", 0L);
		}
	}

	/** The reads a store of {@code entries} asks for while a retention of {@code retention} moves by {@code moved}. */
	private static int reads(int entries, int moved, int retention) {
		return (int) Math.ceil(Sweep.PACE * Sweep.SPAN * (double) entries * moved / retention);
	}

	/** A key the store holds, at random. */
	private String someKey(Random random) {
		String key = this.entries.ceilingKey(String.format("key-%08d", random.nextInt(1_000_000)));
		return (key != null) ? key : this.entries.firstKey();
	}

	/** An erasure asks for a pass within a time on the clock: while it waits, the sweep reads by the clock. */
	@Test
	void shouldReadByTheClockWhileARewriteWaits() {
		for (int i = 0; i < 7; i++) {
			this.entries.put("key-" + i, 95L);
		}
		NegateOdd negateOdd = new NegateOdd();
		Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION,
				(timestamp, streamTime) -> streamTime - timestamp > 10, negateOdd, (slice) -> {
				}, this.written::get, this.added::get, 3, System::nanoTime);
		for (int slice = 0; slice < 3; slice++) {
			sweep.slice(100, 1);
		}
		assertThat(sweep.slice(100, 1).read()).as("a full pass done, the stream time still").isZero();

		negateOdd.asked = true;
		assertThat(sweep.slice(100, 1).read()).isEqualTo(3);
		assertThat(sweep.slice(100, 1).read()).isEqualTo(3);
		assertThat(sweep.slice(100, 1).read()).isEqualTo(1);
		assertThat(negateOdd.events).containsExactly("start", "end", "start", "end");
		assertThat(sweep.slice(100, 1).read()).as("done: by the stream time again").isZero();
		// told where each slice's chunk ended, so that a rewrite asked for during a pass knows where it joined
		assertThat(negateOdd.passedTo).containsExactly("key-2", "key-5", "key-6", "key-2", "key-5", "key-6");
	}

	/**
	 * A rewrite asked for during a pass goes on from where the pass is: an entry the task wrote before it was asked
	 * for, which the table held back from the store, is in the store by the time the pass reads there.
	 */
	@Test
	void shouldWriteWhatTheTableHoldsBackBeforeAPassThatARewriteJoinedGoesOn() {
		for (int i = 0; i < 9; i += 2) {
			this.entries.put("key-" + i, 2L);
		}
		Map<String, Long> heldBack = new TreeMap<>();
		StateTable<String, Long> writingBehind = new StateTable<>() {

			@Override
			public Long get(String key) {
				return heldBack.containsKey(key) ? heldBack.get(key) : SweepTests.this.entries.get(key);
			}

			@Override
			public void put(String key, Long value) {
				heldBack.put(key, value);
			}

			@Override
			public void delete(String key) {
				heldBack.remove(key);
				SweepTests.this.entries.remove(key);
			}

			@Override
			public void writePending() {
				SweepTests.this.entries.putAll(heldBack);
				heldBack.clear();
			}

		};
		NegateOdd negateOdd = new NegateOdd();
		Sweep<Long> sweep = new Sweep<>(store(), writingBehind, RETENTION,
				(timestamp, streamTime) -> streamTime - timestamp > 10, negateOdd, (slice) -> {
				}, this.written::get, this.added::get, 2, System::nanoTime);
		assertThat(sweep.slice(0, 1).read()).isEqualTo(2);

		// retention's pass has read key-0 and key-2 (nothing forgettable at stream time 0, negated or not); the task
		// writes key-7, and a rewrite is asked for
		writingBehind.put("key-7", 7L);
		negateOdd.asked = true;
		while (negateOdd.asked) {
			sweep.slice(0, 1);
		}

		assertThat(writingBehind.get("key-7")).as("rewritten by the pass").isEqualTo(-7L);
	}

	/** A rewrite asked for starts a pass however still the task is. */
	@Test
	void shouldNotRestWhileARewriteWaits() {
		for (int i = 0; i < 5; i++) {
			this.entries.put("key-" + i, (long) i + 1);
		}
		NegateOdd negateOdd = new NegateOdd();
		Sweep<Long> sweep = new Sweep<>(store(), this.table, RETENTION, (timestamp, streamTime) -> streamTime - timestamp > 10,
				negateOdd, (forgot) -> {
				}, this.written::get, this.added::get, 3, System::nanoTime);
		// negated, the odd ones are not forgettable at stream time 0 either
		sweep.sweep(0);
		sweep.sweep(0);

		negateOdd.asked = true;
		sweep.sweep(0);
		sweep.sweep(0);

		// with retention on, every pass tells the rewrite it starts and ends, so that one asked for meanwhile may join it
		assertThat(negateOdd.events).containsExactly("start", "end", "start", "end");
		assertThat(this.entries).containsOnly(Map.entry("key-0", -1L), Map.entry("key-1", 2L), Map.entry("key-2", -3L),
				Map.entry("key-4", -5L));
	}

	@Test
	void shouldBeScheduledWithRetentionOnWhetherOrNotARewriteWaits() {
		ProcessorContext<?, ?> context = mock(ProcessorContext.class);
		this.sweep.schedule(context);
		verify(context).schedule(eq(Sweep.INTERVAL), eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	/** The task puts {@code entries}, each a key its table did not know. */
	private void write(long entries) {
		this.written.addAndGet(entries);
		this.added.addAndGet(entries);
	}

	/** Negates odd timestamps and deletes 4, once asked, until a pass ends. */
	private static final class NegateOdd implements Sweep.Rewrite<Long> {

		final List<String> events = new ArrayList<>();

		final List<String> passedTo = new ArrayList<>();

		boolean asked;

		@Override
		public boolean pending() {
			return this.asked;
		}

		@Override
		public void passStarts() {
			this.events.add("start");
		}

		@Override
		public Long rewrite(String key, Long entry) {
			if (!this.asked) {
				return entry;
			}
			return (entry == 4L) ? null : (entry > 0 && entry % 2 == 1) ? -entry : entry;
		}

		@Override
		public void passedTo(String key) {
			this.passedTo.add(key);
		}

		@Override
		public void passEnded() {
			this.events.add("end");
			this.asked = false;
		}

	}

	@SuppressWarnings("unchecked")
	private KeyValueStore<String, Long> store() {
		return (KeyValueStore<String, Long>) Proxy.newProxyInstance(getClass().getClassLoader(),
				new Class<?>[] { KeyValueStore.class }, (proxy, method, arguments) -> {
					if (!method.getName().equals("range")) {
						throw new UnsupportedOperationException(method.getName());
					}
					String from = (String) arguments[0];
					Map<String, Long> view = (from != null) ? this.entries.tailMap(from, true) : this.entries;
					return iterator(new TreeMap<>(view).entrySet().iterator());
				});
	}

	private KeyValueIterator<String, Long> iterator(Iterator<Map.Entry<String, Long>> entries) {
		return new KeyValueIterator<>() {

			@Override
			public boolean hasNext() {
				return entries.hasNext();
			}

			@Override
			public KeyValue<String, Long> next() {
				SweepTests.this.read.incrementAndGet();
				Map.Entry<String, Long> entry = entries.next();
				return KeyValue.pair(entry.getKey(), entry.getValue());
			}

			@Override
			public void close() {
			}

			@Override
			public String peekNextKey() {
				throw new UnsupportedOperationException();
			}

		};
	}

}
