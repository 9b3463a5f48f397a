package io.valueguard.routing;

import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;

import io.valueguard.claims.KeyClaim;
import io.valueguard.config.QueryProperties;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.kafka.TopicProvisioner;
import io.valueguard.store.ActivePartitions;
import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/**
 * This instance's share of a listing while its stream thread is in a rebalance: Kafka Streams refuses every active
 * store of the thread then, at each read, while the thread's other tasks process on.
 */
class ListingsTests {

	private static final String REFUSED = "Cannot get state store bindings because the stream thread is "
			+ "PARTITIONS_ASSIGNED, not RUNNING";

	private final StreamsClients clients = mock(StreamsClients.class);

	private final KafkaStreams streams = mock(KafkaStreams.class);

	private final ActivePartitions active = new ActivePartitions();

	private final Listings listings;

	ListingsTests() {
		QueryProperties properties = TestProperties.query(Map.of());
		this.listings = new Listings(this.clients, mock(RemoteInstances.class), mock(TopicProvisioner.class),
				properties, this.active);
	}

	@BeforeEach
	void instance() {
		given(this.clients.self()).willReturn(new HostInfo("self", 8080));
		given(this.clients.forStore("bindings")).willReturn(Optional.of(this.streams));
		ThreadMetadata thread = mock(ThreadMetadata.class);
		Set<TaskMetadata> tasks = Set.of(task(0), task(1));
		given(thread.activeTasks()).willReturn(tasks);
		given(this.streams.metadataForLocalThreads()).willReturn(Set.of(thread));
	}

	@Test
	void shouldListThePartitionsWhoseTaskProcessesWhileTheThreadRebalances() {
		// partition 0's task processes on; partition 1's was given to the thread and restores
		this.active.started("bindings", 0, this);
		storesOf(Map.of(),
				Map.of(0, List.of(entry("alice", "phone"), entry("bob", "desk")), 1, List.of(entry("carol", "car"))));

		LocalPage<BindingView> page = this.listings.local(Lookup.BINDINGS, null, 10);

		assertThat(page.partitions()).containsExactly(0);
		assertThat(page.items()).extracting(BindingView::key).containsExactly("alice", "bob");
		assertThat(page.more()).isFalse();
	}

	/** A thread that has not been RUNNING since its instance started lists no tasks in Kafka Streams' metadata. */
	@Test
	void shouldListAPartitionWhoseTaskStartedSinceTheThreadWasLastRunning() {
		ThreadMetadata starting = mock(ThreadMetadata.class);
		given(starting.activeTasks()).willReturn(Set.of());
		given(this.streams.metadataForLocalThreads()).willReturn(Set.of(starting));
		this.active.started("bindings", 1, this);
		storesOf(Map.of(), Map.of(1, List.of(entry("carol", "car"))));

		LocalPage<BindingView> page = this.listings.local(Lookup.BINDINGS, null, 10);

		assertThat(page.partitions()).containsExactly(1);
		assertThat(page.items()).extracting(BindingView::key).containsExactly("carol");
	}

	@Test
	void shouldAddNothingOfAPartitionRefusedHalfwayThroughItsEntries() {
		this.active.started("bindings", 0, this);
		this.active.started("bindings", 1, this);
		List<KeyValue<String, KeyClaim>> first = List.of(entry("alice", "phone"), entry("bob", "desk"));
		List<KeyValue<String, KeyClaim>> second = List.of(entry("carol", "car"));
		given(this.streams.store(any())).willAnswer((invocation) -> {
			StoreQueryParameters<?> parameters = invocation.getArgument(0);
			List<KeyValue<String, KeyClaim>> entries = (parameters.partition() == 0) ? first : second;
			// the strict store hands out its first entry, then the thread leaves RUNNING
			return store(entries, parameters.staleStoresEnabled() ? -1 : 1);
		});

		LocalPage<BindingView> page = this.listings.local(Lookup.BINDINGS, null, 10);

		assertThat(page.partitions()).containsExactly(0, 1);
		assertThat(page.items()).extracting(BindingView::key).containsExactly("alice", "bob", "carol");
	}

	@Test
	void shouldLeaveOutEveryPartitionWhenNoTaskProcessesHere() {
		storesOf(Map.of(), Map.of(0, List.of(entry("alice", "phone")), 1, List.of(entry("carol", "car"))));

		LocalPage<BindingView> page = this.listings.local(Lookup.BINDINGS, null, 10);

		assertThat(page.partitions()).isEmpty();
		assertThat(page.items()).isEmpty();
	}

	@Test
	void shouldSayAPartitionReadThroughTheRebalanceHasMore() {
		this.active.started("bindings", 0, this);
		storesOf(Map.of(), Map.of(0, List.of(entry("alice", "phone"), entry("bob", "desk"), entry("dan", "pen"))));

		LocalPage<BindingView> page = this.listings.local(Lookup.BINDINGS, "alice", 1);

		assertThat(page.partitions()).containsExactly(0);
		assertThat(page.items()).extracting(BindingView::key).containsExactly("bob");
		assertThat(page.more()).isTrue();
	}

	/**
	 * Strict stores that serve {@code strict}'s partitions and refuse the others at their first read, as Kafka
	 * Streams' store does once the thread left RUNNING; stores with stale reads enabled serve {@code stale}'s.
	 */
	private void storesOf(Map<Integer, List<KeyValue<String, KeyClaim>>> strict,
			Map<Integer, List<KeyValue<String, KeyClaim>>> stale) {
		given(this.streams.store(any())).willAnswer((invocation) -> {
			StoreQueryParameters<?> parameters = invocation.getArgument(0);
			Map<Integer, List<KeyValue<String, KeyClaim>>> served = parameters.staleStoresEnabled() ? stale : strict;
			List<KeyValue<String, KeyClaim>> entries = served.get(parameters.partition());
			return (entries != null) ? store(entries, -1) : store(List.of(), 0);
		});
	}

	/** A store of {@code entries} whose iterators refuse after {@code refuseAfter} entries (never when negative). */
	@SuppressWarnings("unchecked")
	private static ReadOnlyKeyValueStore<String, KeyClaim> store(List<KeyValue<String, KeyClaim>> entries,
			int refuseAfter) {
		ReadOnlyKeyValueStore<String, KeyClaim> store = mock(ReadOnlyKeyValueStore.class);
		given(store.all()).willAnswer((invocation) -> iterator(entries, null, refuseAfter));
		given(store.range(any(), any())).willAnswer(
				(invocation) -> iterator(entries, invocation.getArgument(0), refuseAfter));
		return store;
	}

	private static KeyValueIterator<String, KeyClaim> iterator(List<KeyValue<String, KeyClaim>> entries,
			String from, int refuseAfter) {
		Iterator<KeyValue<String, KeyClaim>> all = entries.stream()
			.filter((entry) -> from == null || entry.key.compareTo(from) >= 0)
			.iterator();
		return new KeyValueIterator<>() {

			private int handedOut;

			@Override
			public boolean hasNext() {
				if (this.handedOut == refuseAfter) {
					throw new InvalidStateStoreException(REFUSED);
				}
				return all.hasNext();
			}

			@Override
			public KeyValue<String, KeyClaim> next() {
				if (!hasNext()) {
					throw new NoSuchElementException();
				}
				this.handedOut++;
				return all.next();
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

	private static KeyValue<String, KeyClaim> entry(String key, String value) {
		return KeyValue.pair(key, new KeyClaim(value, 1, true));
	}

	private static TaskMetadata task(int partition) {
		TaskMetadata task = mock(TaskMetadata.class);
		given(task.taskId()).willReturn(new TaskId(0, partition));
		return task;
	}

}
