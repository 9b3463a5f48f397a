package io.valueguard.routing;

import java.time.Duration;
import java.util.ConcurrentModificationException;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.valueguard.claims.KeyClaim;
import io.valueguard.config.QueryProperties;
import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.messages.KeyPartitions;
import io.valueguard.store.TableEntries;
import io.valueguard.support.TestProperties;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.StreamsStoppedException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/**
 * Routing decisions of lookups, whose key lives on this instance or another, with Kafka Streams and HTTP mocked away.
 */
class LookupRouterTests {

	private static final HostInfo SELF = new HostInfo("self", 8080);

	private static final HostInfo ACTIVE = new HostInfo("active", 8080);

	private static final HostInfo STANDBY = new HostInfo("standby", 8080);

	private final StreamsClients clients = mock(StreamsClients.class);

	private final StoreLags lags = mock(StoreLags.class);

	private final RemoteInstances remote = mock(RemoteInstances.class);

	private final KafkaStreams streams = mock(KafkaStreams.class);

	@BeforeEach
	@SuppressWarnings("unchecked")
	void cluster() {
		given(this.clients.self()).willReturn(SELF);
		given(this.clients.queryable("bindings")).willReturn(this.streams);
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(ACTIVE, java.util.Set.of(STANDBY), 3));
		given(this.lags.lag(any(), any(Integer.class))).willReturn(OptionalLong.empty());
	}

	private LookupRouter router(Duration remoteCacheTtl) {
		QueryProperties properties = TestProperties.query(Map.of("retry-budget", "300ms", "retry-backoff", "50ms",
				"remote-cache-ttl", remoteCacheTtl.toMillis() + "ms", "remote-cache-size", "100"));
		return new LookupRouter(this.clients, this.lags, this.remote, properties,
				new LookupMetrics(new SimpleMeterRegistry()));
	}

	@Test
	void shouldForwardOnceToActiveHost() {
		Answer<BindingView> remoteAnswer = new Answer<>(new BindingView("alice", "phone", 1), "active:8080", null);
		given(this.remote.lookup(ACTIVE, Lookup.BINDINGS, "alice", null)).willReturn(remoteAnswer);

		assertThat(router(Duration.ZERO).binding("alice", null)).isEqualTo(remoteAnswer);
		assertThat(router(Duration.ZERO).binding("alice", null)).isEqualTo(remoteAnswer);
		verify(this.remote, times(2)).lookup(ACTIVE, Lookup.BINDINGS, "alice", null);
	}

	@Test
	void shouldServeRepeatedForwardedLookupsFromCacheWhenEnabled() {
		given(this.remote.lookup(ACTIVE, Lookup.BINDINGS, "alice", null))
			.willReturn(new Answer<>(new BindingView("alice", "phone", 1), "active:8080", null));
		LookupRouter router = router(Duration.ofMinutes(1));

		router.binding("alice", null);
		router.binding("alice", null);

		verify(this.remote, times(1)).lookup(ACTIVE, Lookup.BINDINGS, "alice", null);
	}

	@Test
	void shouldNeverForwardAgainWhenRequestWasForwarded() {
		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).forwarded(Lookup.BINDINGS, "alice", null))
			.withMessageContaining("could not answer within 300 ms");
		verify(this.remote, times(0)).lookup(any(), any(), any(), any());
	}

	@Test
	void shouldGiveUpWithinBudgetWhenActiveHostIsUnreachable() {
		given(this.remote.lookup(ACTIVE, Lookup.BINDINGS, "alice", null))
			.willThrow(new RemoteInstances.UnavailableException("Cannot reach active:8080", null));
		long start = System.nanoTime();

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null))
			.withMessageContaining("Cannot reach active:8080");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void shouldAskStandbyWhenActiveIsUnreachableAndStaleReadsAreAllowed() {
		given(this.remote.lookup(ACTIVE, Lookup.BINDINGS, "alice", 100L))
			.willThrow(new RemoteInstances.UnavailableException("Cannot reach active:8080", null));
		Answer<BindingView> stale = new Answer<>(new BindingView("alice", "phone", 1), "standby:8080", 7L);
		given(this.remote.lookup(STANDBY, Lookup.BINDINGS, "alice", 100L)).willReturn(stale);

		assertThat(router(Duration.ZERO).binding("alice", 100L)).isEqualTo(stale);
	}

	@Test
	void shouldWaitForMetadataWhileRebalancing() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(KeyQueryMetadata.NOT_AVAILABLE);

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null));
		verify(this.remote, times(0)).lookup(any(), any(), any(), isNull());
	}

	@Test
	void shouldAnswer503NotServerErrorWhenLocalClientIsInError() {
		given(this.clients.queryable("bindings"))
			.willThrow(StreamsClients.notRunning("bindings", KafkaStreams.State.ERROR));

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null))
			.withMessageContaining("being restarted");
	}

	@Test
	void shouldAnswer503WhenClientStopsBetweenCheckAndMetadataCall() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willThrow(new IllegalStateException("KafkaStreams is not running. State is ERROR."));
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null))
			.withMessageContaining("ERROR");
	}

	@Test
	void shouldForwardToLastKnownActiveHostWhileLocalClientIsNotRunning() {
		int partitions = 6;
		int partition = org.apache.kafka.common.utils.Utils
			.toPositive(org.apache.kafka.common.utils.Utils.murmur2("alice".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
				% partitions;
		StreamsMetadata active = mock(StreamsMetadata.class);
		given(active.hostInfo()).willReturn(ACTIVE);
		given(active.topicPartitions()).willReturn(java.util.Set.of(new TopicPartition("claims", partition)));
		given(active.standbyTopicPartitions()).willReturn(java.util.Set.of());
		StreamsMetadata self = mock(StreamsMetadata.class);
		given(self.hostInfo()).willReturn(SELF);
		given(self.topicPartitions()).willReturn(java.util.Set.of(new TopicPartition("claims", partitions - 1)));
		given(self.standbyTopicPartitions()).willReturn(java.util.Set.of());
		given(this.streams.streamsMetadataForStore("bindings")).willReturn(java.util.List.of(active, self));
		Answer<BindingView> remoteAnswer = new Answer<>(new BindingView("alice", "phone", 1), "active:8080", null);
		given(this.remote.lookup(ACTIVE, Lookup.BINDINGS, "alice", null)).willReturn(remoteAnswer);
		LookupRouter router = router(Duration.ZERO);
		router.binding("alice", null);

		given(this.clients.queryable("bindings"))
			.willThrow(StreamsClients.notRunning("bindings", KafkaStreams.State.ERROR));

		assertThat(router.binding("alice", null)).isEqualTo(remoteAnswer);
		verify(this.remote, times(2)).lookup(ACTIVE, Lookup.BINDINGS, "alice", null);
	}

	@Test
	void shouldAskEachOtherInstanceOnceForABatch() {
		routedInBatches("alice", ACTIVE, 3);
		routedInBatches("bob", ACTIVE, 1);
		given(this.remote.fanOut()).willReturn(java.util.concurrent.Executors.newSingleThreadExecutor());
		java.util.Map<String, BindingView> answered = new java.util.HashMap<>();
		answered.put("alice", new BindingView("alice", "phone", 1));
		answered.put("bob", null);
		given(this.remote.batch(ACTIVE, Lookup.BINDINGS, java.util.List.of("alice", "bob")))
			.willReturn(answered);

		assertThat(router(Duration.ZERO).batch(Lookup.BINDINGS, java.util.List.of("alice", "bob"), null))
			.containsEntry("alice", new BindingView("alice", "phone", 1))
			.containsEntry("bob", null)
			.hasSize(2);
		verify(this.remote, times(1)).batch(ACTIVE, Lookup.BINDINGS, java.util.List.of("alice", "bob"));
		verify(this.remote, times(0)).lookup(any(), any(), any(), any());
	}

	@Test
	@SuppressWarnings("unchecked")
	void shouldReadThisInstancesShareOfABatchInOneQuery() {
		localKey("alice", 3);
		localKey("bob", 1);
		localKey("carol", 3);
		StateQueryResult<Map<String, KeyClaim>> read = new StateQueryResult<>();
		read.addResult(3, QueryResult.forResult(Map.of("alice", new KeyClaim("phone", 5, true))));
		read.addResult(1, QueryResult.forResult(Map.of("bob", new KeyClaim("desk", 6, false))));
		given(this.streams.query(any(StateQueryRequest.class))).willReturn(read);

		assertThat(router(Duration.ZERO).batch(Lookup.BINDINGS, List.of("alice", "bob", "carol"), null))
			.containsEntry("alice", new BindingView("alice", "phone", 5))
			.containsEntry("bob", null)
			.containsEntry("carol", null)
			.hasSize(3);
		ArgumentCaptor<StateQueryRequest<Map<String, KeyClaim>>> asked = ArgumentCaptor.forClass(StateQueryRequest.class);
		verify(this.streams, times(1)).query(asked.capture());
		assertThat(asked.getValue().getStoreName()).isEqualTo("bindings-pending-writes");
		assertThat(asked.getValue().isRequireActive()).isTrue();
		assertThat(asked.getValue().getQuery()).isEqualTo(
				new TableEntries<String, KeyClaim>(Map.of(3, List.of("alice", "carol"), 1, List.of("bob"))));
		verify(this.streams, never()).store(any());
	}

	@Test
	@SuppressWarnings("unchecked")
	void shouldLookUpOneByOneTheKeysOfAPartitionThisInstanceCannotServeNow() {
		localKey("alice", 3);
		localKey("bob", 1);
		StateQueryResult<Map<String, KeyClaim>> read = new StateQueryResult<>();
		read.addResult(3, QueryResult.forResult(Map.of("alice", new KeyClaim("phone", 5, true))));
		read.addResult(1, QueryResult.forFailure(FailureReason.NOT_ACTIVE, "restoring"));
		given(this.streams.query(any(StateQueryRequest.class))).willReturn(read);
		ReadOnlyKeyValueStore<String, KeyClaim> partition = mock(ReadOnlyKeyValueStore.class);
		given(partition.get("bob")).willReturn(new KeyClaim("desk", 6, true));
		given(this.streams.store(any())).willReturn(partition);

		assertThat(router(Duration.ZERO).batch(Lookup.BINDINGS, List.of("alice", "bob"), null))
			.containsEntry("alice", new BindingView("alice", "phone", 5))
			.containsEntry("bob", new BindingView("bob", "desk", 6));
		verify(partition, times(1)).get("bob");
		verify(partition, never()).get("alice");
	}

	@Test
	void shouldLookUpOneByOneWhenTheClientStopsBeforeTheQuery() {
		shouldLookUpOneByOneWhenTheQueryThrows(new StreamsStoppedException("KafkaStreams has been stopped"));
	}

	@Test
	void shouldLookUpOneByOneWhenTheClientReplacesAThreadDuringTheQuery() {
		shouldLookUpOneByOneWhenTheQueryThrows(new ConcurrentModificationException());
	}

	@SuppressWarnings("unchecked")
	private void shouldLookUpOneByOneWhenTheQueryThrows(RuntimeException thrown) {
		localKey("alice", 3);
		given(this.streams.query(any(StateQueryRequest.class))).willThrow(thrown);
		ReadOnlyKeyValueStore<String, KeyClaim> partition = mock(ReadOnlyKeyValueStore.class);
		given(partition.get("alice")).willReturn(new KeyClaim("phone", 5, true));
		given(this.streams.store(any())).willReturn(partition);

		assertThat(router(Duration.ZERO).batch(Lookup.BINDINGS, List.of("alice"), null))
			.containsEntry("alice", new BindingView("alice", "phone", 5));
	}

	/**
	 * Kafka Streams works out a key's metadata from every instance's partitions for each key it is asked about; a
	 * batch asks once per partition and computes the other keys' partitions as Kafka Streams would, with the
	 * partition count it passed the partitioner.
	 */
	@Test
	@SuppressWarnings("unchecked")
	void shouldAskKafkaStreamsForTheMetadataOfABatchOncePerPartition() {
		List<String> keys = java.util.stream.IntStream.range(0, 60).mapToObj((i) -> "key-" + i).toList();
		given(this.streams.queryMetadataForKey(eq("bindings"), any(String.class), any(StreamPartitioner.class)))
			.willAnswer((call) -> {
				StreamPartitioner<String, Void> partitioner = call.getArgument(2);
				int partition = partitioner.partitions("claims", call.getArgument(1), null, 6).orElseThrow()
					.iterator().next();
				return new KeyQueryMetadata(SELF, java.util.Set.of(), partition);
			});
		given(this.streams.query(any(StateQueryRequest.class))).willReturn(new StateQueryResult<>() {
			{
				for (int partition = 0; partition < 6; partition++) {
					addResult(partition, QueryResult.forResult(Map.of()));
				}
			}
		});

		assertThat(router(Duration.ZERO).batch(Lookup.BINDINGS, keys, null)).hasSize(60);

		verify(this.streams, times(6)).queryMetadataForKey(eq("bindings"), any(String.class),
				any(StreamPartitioner.class));
		ArgumentCaptor<StateQueryRequest<Map<String, KeyClaim>>> asked = ArgumentCaptor.forClass(StateQueryRequest.class);
		verify(this.streams).query(asked.capture());
		Map<Integer, List<String>> expected = new java.util.HashMap<>();
		keys.forEach((key) -> expected.computeIfAbsent(KeyPartitions.of(key, 6), (p) -> new java.util.ArrayList<>())
			.add(key));
		assertThat(asked.getValue().getQuery()).isEqualTo(new TableEntries<String, KeyClaim>(expected));
	}

	/** The key lives in {@code partition}, which this instance is active for: in a batch and looked up alone. */
	@SuppressWarnings("unchecked")
	private void localKey(String key, int partition) {
		routedInBatches(key, SELF, partition);
		given(this.streams.queryMetadataForKey(eq("bindings"), eq(key), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(SELF, java.util.Set.of(), partition));
	}

	/** What Kafka Streams says of the key when a batch asks (it gives its partitioner, not a serializer). */
	@SuppressWarnings("unchecked")
	private void routedInBatches(String key, HostInfo active, int partition) {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq(key), any(StreamPartitioner.class)))
			.willReturn(new KeyQueryMetadata(active, java.util.Set.of(), partition));
	}

}
