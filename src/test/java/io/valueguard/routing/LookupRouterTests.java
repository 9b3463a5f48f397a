package io.valueguard.routing;

import java.time.Duration;
import java.util.Map;
import java.util.OptionalLong;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.valueguard.config.QueryProperties;
import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import io.valueguard.support.TestProperties;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

/** Routing decisions of lookups whose key lives on another instance, with Kafka Streams and HTTP mocked away. */
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
		given(this.streams.queryMetadataForKey(eq("bindings"), eq("bob"), any(Serializer.class)))
			.willReturn(new KeyQueryMetadata(ACTIVE, java.util.Set.of(), 1));
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

}
