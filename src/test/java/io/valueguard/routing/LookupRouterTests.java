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
import io.valueguard.store.ActivePartitions;
import io.valueguard.store.TableEntries;
import io.valueguard.support.TestProperties;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.errors.StreamsStoppedException;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;
import org.apache.kafka.streams.state.HostInfo;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.ArgumentCaptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.willReturn;
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

	private final ActivePartitions active = new ActivePartitions();

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
		return router(remoteCacheTtl, Duration.ofSeconds(3));
	}

	private LookupRouter router(Duration remoteCacheTtl, Duration readTimeout) {
		QueryProperties properties = TestProperties.query(Map.of("retry-budget", "300ms", "retry-backoff", "50ms",
				"remote-cache-ttl", remoteCacheTtl.toMillis() + "ms", "remote-cache-size", "100", "read-timeout",
				readTimeout.toMillis() + "ms"));
		return new LookupRouter(this.clients, this.lags, this.remote, properties,
				new LookupMetrics(new SimpleMeterRegistry()), this.active);
	}

	/**
	 * A forwarded lookup of {@code key} on {@code host}, however long it may wait: the router cuts the wait to what its
	 * budget has left.
	 */
	private static <T> Answer<T> lookupOn(RemoteInstances remote, HostInfo host, Lookup<?, T> lookup, String key,
			@Nullable Long maxLag) {
		return remote.lookup(eq(host), eq(lookup), eq(key), eq(maxLag), any());
	}

	@Test
	void shouldForwardOnceToActiveHost() {
		Answer<BindingView> remoteAnswer = new Answer<>(new BindingView("alice", "phone", 1), "active:8080", null);
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", null)).willReturn(remoteAnswer);

		assertThat(router(Duration.ZERO).binding("alice", null)).isEqualTo(remoteAnswer);
		assertThat(router(Duration.ZERO).binding("alice", null)).isEqualTo(remoteAnswer);
		lookupOn(verify(this.remote, times(2)), ACTIVE, Lookup.BINDINGS, "alice", null);
	}

	@Test
	void shouldServeRepeatedForwardedLookupsFromCacheWhenEnabled() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", null))
			.willReturn(new Answer<>(new BindingView("alice", "phone", 1), "active:8080", null));
		LookupRouter router = router(Duration.ofMinutes(1));

		router.binding("alice", null);
		router.binding("alice", null);

		lookupOn(verify(this.remote, times(1)), ACTIVE, Lookup.BINDINGS, "alice", null);
	}

	@Test
	void shouldNeverForwardAgainWhenRequestWasForwarded() {
		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).forwarded(Lookup.BINDINGS, "alice", null))
			.withMessageContaining("cannot answer here now");
		verify(this.remote, times(0)).lookup(any(), any(), any(), any(), any());
	}

	/**
	 * The asking instance waits for a forwarded lookup no longer than its read timeout, shorter than the budget, and
	 * retries itself with fresh metadata: a forwarded lookup that cannot be answered here answers 503 at once.
	 */
	@Test
	@SuppressWarnings("unchecked")
	void shouldTryAForwardedLookupOnceAndLeaveRetriesToTheAskingInstance() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(KeyQueryMetadata.NOT_AVAILABLE);

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).forwarded(Lookup.BINDINGS, "alice", null));

		verify(this.streams, times(1)).queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class));
	}

	@Test
	void shouldGiveUpWithinBudgetWhenActiveHostIsUnreachable() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", null))
			.willThrow(new RemoteInstances.UnavailableException("Cannot reach active:8080", null));
		long start = System.nanoTime();

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null))
			.withMessageContaining("Cannot reach active:8080");
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
	}

	@Test
	void shouldAskStandbyWhenActiveIsUnreachableAndStaleReadsAreAllowed() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", 100L))
			.willThrow(new RemoteInstances.UnavailableException("Cannot reach active:8080", null));
		Answer<BindingView> stale = new Answer<>(new BindingView("alice", "phone", 1), "standby:8080", 7L);
		given(lookupOn(this.remote, STANDBY, Lookup.BINDINGS, "alice", 100L)).willReturn(stale);

		assertThat(router(Duration.ZERO).binding("alice", 100L)).isEqualTo(stale);
	}

	@Test
	@SuppressWarnings("unchecked")
	void shouldReadItsOwnStandbyFirstWhenStaleReadsAreAllowed() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(ACTIVE, java.util.Set.of(SELF), 3));
		given(this.lags.lag("bindings", 3)).willReturn(OptionalLong.of(7));
		ReadOnlyKeyValueStore<String, KeyClaim> standby = mock(ReadOnlyKeyValueStore.class);
		given(standby.get("alice")).willReturn(new KeyClaim("phone", 1, true));
		given(this.streams.store(any())).willReturn(standby);

		assertThat(router(Duration.ZERO).binding("alice", 100L))
			.isEqualTo(new Answer<>(new BindingView("alice", "phone", 1), "self:8080", 7L));
		verify(this.remote, never()).lookup(any(), any(), any(), any(), any());
	}

	/**
	 * Kafka Streams refuses every active store of a stream thread while the thread is in a rebalance, until a task it
	 * was given has restored and fetched its offsets; the thread's other tasks process on meanwhile.
	 */
	@Test
	@SuppressWarnings("unchecked")
	void shouldReadTheActiveStoreOfAPartitionWhoseTaskProcessesWhileItsThreadRebalances() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(SELF, java.util.Set.of(STANDBY), 3));
		ReadOnlyKeyValueStore<String, KeyClaim> store = mock(ReadOnlyKeyValueStore.class);
		given(store.get("alice")).willReturn(new KeyClaim("phone", 1, true));
		ArgumentCaptor<StoreQueryParameters<?>> asked = ArgumentCaptor.forClass(StoreQueryParameters.class);
		given(this.streams.store(asked.capture())).willAnswer((invocation) -> {
			StoreQueryParameters<?> parameters = invocation.getArgument(0);
			if (!parameters.staleStoresEnabled()) {
				throw new InvalidStateStoreException("Cannot get state store bindings because the stream thread is "
						+ "PARTITIONS_ASSIGNED, not RUNNING");
			}
			return store;
		});
		this.active.started("bindings", 3, this);

		assertThat(router(Duration.ZERO).binding("alice", null))
			.isEqualTo(new Answer<>(new BindingView("alice", "phone", 1), "self:8080", null));
		assertThat(asked.getAllValues()).extracting(StoreQueryParameters::partition).containsOnly(3);
		verify(this.remote, never()).lookup(any(), any(), any(), any(), any());
	}

	@Test
	void shouldNotReadAPartitionWhoseTaskDoesNotProcessHereWhileItsThreadRebalances() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(SELF, java.util.Set.of(STANDBY), 3));
		given(this.streams.store(any())).willThrow(new InvalidStateStoreException(
				"Cannot get state store bindings because the stream thread is PARTITIONS_ASSIGNED, not RUNNING"));
		// another partition's task processes here; the key's is restoring, or stopped since
		this.active.started("bindings", 1, this);
		this.active.started("bindings", 3, this);
		this.active.stopped("bindings", 3, this);

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null));
		verify(this.streams, never()).store(org.mockito.ArgumentMatchers
			.argThat((StoreQueryParameters<?> parameters) -> parameters != null && parameters.staleStoresEnabled()));
	}

	@Test
	@SuppressWarnings("unchecked")
	void shouldAskTheActiveWhenItsOwnStandbyIsFurtherBehindThanAllowed() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(ACTIVE, java.util.Set.of(SELF), 3));
		given(this.lags.lag("bindings", 3)).willReturn(OptionalLong.of(500));
		Answer<BindingView> fresh = new Answer<>(new BindingView("alice", "phone", 2), "active:8080", null);
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", 100L)).willReturn(fresh);

		assertThat(router(Duration.ZERO).binding("alice", 100L)).isEqualTo(fresh);
		verify(this.streams, never()).store(any());
	}

	/**
	 * A frozen instance keeps its partitions until its session times out, and a lookup forwarded to it waits the whole
	 * read timeout: once it has not answered, stale reads ask the standby first, until it answers again.
	 */
	@Test
	void shouldAskAnActiveThatGaveNoAnswerLastWhenStaleReadsAreAllowed() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", 100L)).willThrow(readTimedOut(ACTIVE));
		Answer<BindingView> stale = standbyAnswers();
		// a read timeout within the budget: the active was given all of it
		LookupRouter router = router(Duration.ZERO, Duration.ofMillis(100));

		assertThat(router.binding("alice", 100L)).isEqualTo(stale);
		assertThat(router.binding("alice", 100L)).isEqualTo(stale);
		assertThat(router.binding("alice", 100L)).isEqualTo(stale);
		lookupOn(verify(this.remote, times(1)), ACTIVE, Lookup.BINDINGS, "alice", 100L);
		lookupOn(verify(this.remote, times(3)), STANDBY, Lookup.BINDINGS, "alice", 100L);

		// strict lookups still ask the active, the only one that may answer them; its answer ends the suspicion
		Answer<BindingView> fresh = new Answer<>(new BindingView("alice", "phone", 2), "active:8080", null);
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", null)).willReturn(fresh);
		assertThat(router.binding("alice", null)).isEqualTo(fresh);
		lookupOn(willReturn(fresh).given(this.remote), ACTIVE, Lookup.BINDINGS, "alice", 100L);
		assertThat(router.binding("alice", 100L)).isEqualTo(fresh);
		lookupOn(verify(this.remote, times(3)), STANDBY, Lookup.BINDINGS, "alice", 100L);
	}

	/**
	 * The budget is a deadline: a forwarded lookup waits for its answer no longer than the budget has left, and a
	 * wait cut short so proves nothing against the host.
	 */
	@Test
	void shouldWaitForAForwardedAnswerNoLongerThanTheBudgetHasLeft() {
		ArgumentCaptor<Duration> waits = ArgumentCaptor.forClass(Duration.class);
		given(this.remote.lookup(eq(ACTIVE), eq(Lookup.BINDINGS), eq("alice"), eq(100L), waits.capture()))
			.willThrow(readTimedOut(ACTIVE));
		given(lookupOn(this.remote, STANDBY, Lookup.BINDINGS, "alice", 100L))
			.willThrow(new RemoteInstances.UnavailableException("standby:8080 answered 503", null));
		LookupRouter router = router(Duration.ZERO);

		assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(() -> router.binding("alice", 100L));

		assertThat(waits.getAllValues()).isNotEmpty()
			.allSatisfy((wait) -> assertThat(wait).isNotNull().isLessThanOrEqualTo(Duration.ofMillis(300)));
		assertThat(waits.getAllValues()).isSortedAccordingTo(java.util.Comparator.reverseOrder());
	}

	@Test
	void shouldNotTakeAWaitTheBudgetCutShortForSilence() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", 100L)).willThrow(readTimedOut(ACTIVE));
		standbyAnswers();
		// the budget (300 ms) is shorter than the read timeout: every wait is cut to it
		LookupRouter router = router(Duration.ZERO);

		router.binding("alice", 100L);
		router.binding("alice", 100L);

		lookupOn(verify(this.remote, times(2)), ACTIVE, Lookup.BINDINGS, "alice", 100L);
	}

	/**
	 * A host that gave no answer is asked again, when nothing else can answer, for no longer than the connect timeout:
	 * running again, it answers in milliseconds; still frozen, it would keep every try the whole read timeout.
	 */
	@Test
	void shouldWaitForASilentHostNoLongerThanTheConnectTimeout() {
		ArgumentCaptor<Duration> waits = ArgumentCaptor.forClass(Duration.class);
		given(this.remote.lookup(eq(ACTIVE), eq(Lookup.BINDINGS), eq("alice"), isNull(), waits.capture()))
			.willThrow(readTimedOut(ACTIVE));
		QueryProperties properties = TestProperties.query(Map.of("retry-budget", "400ms", "retry-backoff", "20ms",
				"read-timeout", "200ms", "connect-timeout", "50ms"));
		LookupRouter router = new LookupRouter(this.clients, this.lags, this.remote, properties,
				new LookupMetrics(new SimpleMeterRegistry()), this.active);

		assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(() -> router.binding("alice", null));

		assertThat(waits.getAllValues()).hasSizeGreaterThan(1);
		assertThat(waits.getAllValues().get(0)).as("the whole read timeout, the first time").isNull();
		assertThat(waits.getAllValues().subList(1, waits.getAllValues().size()))
			.allSatisfy((wait) -> assertThat(wait).isNotNull().isLessThanOrEqualTo(Duration.ofMillis(50)));
	}

	@Test
	void shouldKeepAHostSilentThroughAWaitTheBudgetCutShort() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", null)).willThrow(readTimedOut(ACTIVE));
		Answer<BindingView> stale = standbyAnswers();
		// the first attempts wait the whole read timeout (100 ms); the last ones only what the budget has left
		LookupRouter router = router(Duration.ZERO, Duration.ofMillis(100));

		assertThatExceptionOfType(StoreUnavailableException.class).isThrownBy(() -> router.binding("alice", null));

		assertThat(router.binding("alice", 100L)).isEqualTo(stale);
		lookupOn(verify(this.remote, never()), ACTIVE, Lookup.BINDINGS, "alice", 100L);
	}

	@Test
	void shouldKeepAskingTheActiveFirstWhenItAnswersThatItCannotHelp() {
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", 100L))
			.willThrow(new RemoteInstances.UnavailableException("active:8080 answered 503", null));
		standbyAnswers();
		LookupRouter router = router(Duration.ZERO);

		router.binding("alice", 100L);
		router.binding("alice", 100L);

		// a 503 is an answer: the instance is alive and about to hold the partition again (restoring)
		lookupOn(verify(this.remote, times(2)), ACTIVE, Lookup.BINDINGS, "alice", 100L);
	}

	/** What a forwarded lookup to a host that took the request and never answered throws. */
	private static RemoteInstances.UnavailableException readTimedOut(HostInfo host) {
		return new RemoteInstances.UnavailableException("Cannot reach " + Hosts.name(host) + ": Read timed out",
				new java.net.SocketTimeoutException("Read timed out"));
	}

	/** The standby answers stale reads of alice. */
	private Answer<BindingView> standbyAnswers() {
		Answer<BindingView> stale = new Answer<>(new BindingView("alice", "phone", 1), "standby:8080", 7L);
		given(lookupOn(this.remote, STANDBY, Lookup.BINDINGS, "alice", 100L)).willReturn(stale);
		return stale;
	}

	@Test
	void shouldWaitForMetadataWhileRebalancing() {
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("alice"), any(Serializer.class)))
			.willReturn(KeyQueryMetadata.NOT_AVAILABLE);

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> router(Duration.ZERO).binding("alice", null));
		verify(this.remote, times(0)).lookup(any(), any(), any(), isNull(), any());
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
		given(lookupOn(this.remote, ACTIVE, Lookup.BINDINGS, "alice", null)).willReturn(remoteAnswer);
		LookupRouter router = router(Duration.ZERO);
		router.binding("alice", null);

		given(this.clients.queryable("bindings"))
			.willThrow(StreamsClients.notRunning("bindings", KafkaStreams.State.ERROR));

		assertThat(router.binding("alice", null)).isEqualTo(remoteAnswer);
		lookupOn(verify(this.remote, times(2)), ACTIVE, Lookup.BINDINGS, "alice", null);
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
		verify(this.remote, times(0)).lookup(any(), any(), any(), any(), any());
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

	/**
	 * Kafka Streams answers the active-only query with NOT_ACTIVE for every partition of a thread in a rebalance; the
	 * partitions whose task processes here meanwhile are read again in one query that also takes standbys (the only
	 * store of the partition here is the active's), not one key at a time.
	 */
	@Test
	@SuppressWarnings("unchecked")
	void shouldReadThePartitionsOfABatchWhoseTaskProcessesWhileItsThreadRebalances() {
		localKey("alice", 3);
		localKey("bob", 1);
		localKey("carol", 3);
		String refused = "Query requires a running active task, but partition was in state PARTITIONS_ASSIGNED "
				+ "and was active.";
		StateQueryResult<Map<String, KeyClaim>> strict = new StateQueryResult<>();
		strict.addResult(3, QueryResult.forFailure(FailureReason.NOT_ACTIVE, refused));
		strict.addResult(1, QueryResult.forFailure(FailureReason.NOT_ACTIVE, refused));
		StateQueryResult<Map<String, KeyClaim>> through = new StateQueryResult<>();
		through.addResult(3, QueryResult.forResult(Map.of("alice", new KeyClaim("phone", 5, true))));
		given(this.streams.query(any(StateQueryRequest.class)))
			.willAnswer((invocation) -> ((StateQueryRequest<?>) invocation.getArgument(0)).isRequireActive() ? strict
					: through);
		// partition 3's task processes here; partition 1's was given to the thread and restores
		this.active.started("bindings", 3, this);

		assertThat(router(Duration.ZERO).localShare(Lookup.BINDINGS, List.of("alice", "bob", "carol")))
			.containsEntry("alice", new BindingView("alice", "phone", 5))
			.containsEntry("carol", null)
			.doesNotContainKey("bob");
		ArgumentCaptor<StateQueryRequest<Map<String, KeyClaim>>> asked = ArgumentCaptor.forClass(StateQueryRequest.class);
		verify(this.streams, times(2)).query(asked.capture());
		StateQueryRequest<Map<String, KeyClaim>> again = asked.getAllValues().get(1);
		assertThat(again.isRequireActive()).isFalse();
		assertThat(again.getStoreName()).isEqualTo("bindings-pending-writes");
		assertThat(again.getQuery())
			.isEqualTo(new TableEntries<String, KeyClaim>(Map.of(3, List.of("alice", "carol"))));
		verify(this.streams, never()).store(any());
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
