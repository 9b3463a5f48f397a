package io.valueguard.store;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

import io.valueguard.store.MapTable;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The sweep reads its store a slice at a time, in key order, from where it stopped, and starts over at the end. */
class SweepTests {

	/** Entries: key to timestamp; forgettable when more than 10 behind the stream time. */
	private final NavigableMap<String, Long> entries = new TreeMap<>();

	private final AtomicInteger read = new AtomicInteger();

	private final StateTable<String, Long> table = new MapTable<>(this.entries);


	private final Sweep<Long> sweep = new Sweep<>(store(), this.table,
			(timestamp, streamTime) -> streamTime - timestamp > 10, null, (forgot) -> {
			}, 3);

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

	@Test
	void shouldStartOverAtTheEndAndDecideOnTheTablesNewestWrite() {
		this.entries.put("a", 0L);
		this.entries.put("b", 95L);
		this.sweep.sweep(100);
		assertThat(this.entries).containsOnlyKeys("b");

		// written again since: a newer write is never forgotten for an older one's age
		this.entries.put("a", 99L);
		this.entries.put("c", 0L);
		this.sweep.sweep(100);
		assertThat(this.entries).containsOnlyKeys("a", "b");
	}

	@Test
	void shouldPassForARewriteWithRetentionOffAndEndItOnlyAfterAFullPass() {
		for (int i = 0; i < 7; i++) {
			this.entries.put("key-" + i, (long) i);
		}
		// a rewrite that negates odd timestamps, fixed at the start of each pass; deletes 4
		List<String> events = new ArrayList<>();
		boolean[] asked = { false };
		Sweep.Rewrite<Long> negateOdd = new Sweep.Rewrite<>() {

			@Override
			public boolean pending() {
				return asked[0];
			}

			@Override
			public void passStarts() {
				events.add("start");
			}

			@Override
			public Long rewrite(String key, Long entry) {
				return (entry == 4L) ? null : (entry > 0 && entry % 2 == 1) ? -entry : entry;
			}

			@Override
			public void passEnded() {
				events.add("end");
				asked[0] = false;
			}

		};
		Sweep<Long> sweep = new Sweep<>(store(), this.table, null, negateOdd, (forgot) -> {
		}, 3);

		this.read.set(0);
		sweep.sweep(100);
		assertThat(this.read.get()).as("no pass without work, with retention off").isZero();

		asked[0] = true;
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
