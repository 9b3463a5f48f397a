package io.valueguard.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.kafka.core.KafkaAdmin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;

/** When the watch asks the broker about a stage's committed offsets, and what it says and publishes. */
@ExtendWith(OutputCaptureExtension.class)
class OffsetsWatchTests {

	private static final String KEYS = "valueguard-keys";

	private static final TopicPartition CLAIMS_0 = new TopicPartition("valueguard.claims", 0);

	private static final TopicPartition CLAIMS_1 = new TopicPartition("valueguard.claims", 1);

	private final StreamsClients clients = mock(StreamsClients.class);

	private final StreamsBuilderFactoryBean factory = mock(StreamsBuilderFactoryBean.class);

	private final KafkaStreams streams = mock(KafkaStreams.class);

	private final AtomicLong nanos = new AtomicLong();

	/** What the broker answers next, and what it was asked. */
	private HeldBackOffsets answer = HeldBackOffsets.none();

	private final List<Set<TopicPartition>> asked = new ArrayList<>();

	private final List<Duration> openAtLeast = new ArrayList<>();

	private final OffsetsWatch watch = new OffsetsWatch(this.clients, mock(KafkaAdmin.class), Duration.ofMinutes(1),
			Duration.ofSeconds(15), (group, assigned, openAtLeast) -> {
				assertThat(group).isEqualTo(KEYS);
				this.asked.add(assigned);
				this.openAtLeast.add(openAtLeast);
				return this.answer;
			}, this.nanos::get);

	@BeforeEach
	void stage() {
		Properties configuration = new Properties();
		configuration.put(StreamsConfig.APPLICATION_ID_CONFIG, KEYS);
		given(this.factory.getStreamsConfiguration()).willReturn(configuration);
		given(this.factory.getKafkaStreams()).willReturn(this.streams);
		given(this.clients.all()).willReturn(List.of(this.factory));
		HostInfo self = new HostInfo("here", 8080);
		given(this.clients.self()).willReturn(self);
		List<StreamsMetadata> assignment = List.of(client(self, CLAIMS_0), client(new HostInfo("there", 8080), CLAIMS_1));
		given(this.streams.metadataForAllStreamsClients()).willReturn(assignment);
	}

	@Test
	void shouldNotAskWhileTheStageRunsOrBeforeItHasStayedOutOfRunningLongEnough() {
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
		check(Duration.ZERO);
		check(Duration.ofMinutes(10));
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		check(Duration.ofSeconds(59));

		assertThat(this.asked).isEmpty();

		check(Duration.ofSeconds(1));

		assertThat(this.asked).containsExactly(Set.of(CLAIMS_0));
	}

	@Test
	void shouldCountOnlyTransactionsOpenForHalfTheTimeSinceTheStageWasLastSeenRunning() {
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
		check(Duration.ZERO);
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		check(Duration.ofSeconds(60));
		check(Duration.ofSeconds(15));

		// the same group's instances that run open one every commit interval: only one open through the stall held on
		assertThat(this.openAtLeast).containsExactly(Duration.ofSeconds(30), Duration.ofMillis(37_500));
	}

	@Test
	void shouldCountFromTheStartWhenTheStageWasNeverSeenRunning() {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		check(Duration.ZERO);
		check(Duration.ofSeconds(30));

		assertThat(this.asked).isEmpty();

		check(Duration.ofSeconds(30));

		assertThat(this.asked).hasSize(1);
	}

	@Test
	void shouldNameTheBrokerToRestartWhenNoTransactionCanClearTheOffsets(CapturedOutput output) {
		stuck();
		this.answer = heldBack(List.of(), "valueguard.claims-0", "valueguard.claims-3");

		check(Duration.ofSeconds(15));

		assertThat(this.watch.heldBack(KEYS).neverCleared()).isTrue();
		assertThat(output).contains("Stage valueguard-keys has not been RUNNING for 75 s: the group coordinator "
				+ "(broker 1 (broker-1:9092)) holds back the committed offsets of [valueguard.claims-0, "
				+ "valueguard.claims-3] as a transaction's, and no transaction is open on __consumer_offsets-27")
			.contains("Restart broker 1 (broker-1:9092), or move the leadership of __consumer_offsets-27");
	}

	@Test
	void shouldNameTheOpenTransactionThatHoldsTheOffsets(CapturedOutput output) {
		stuck();
		this.answer = heldBack(List.of(new HeldBackOffsets.OpenTransaction("zombie-1", "Ongoing", 12_000, 60_000)),
				"valueguard.claims-0");

		check(Duration.ofSeconds(15));

		assertThat(this.watch.heldBack(KEYS).neverCleared()).isFalse();
		assertThat(this.watch.heldBack(KEYS).any()).isTrue();
		assertThat(output).contains("holds back the committed offsets of [valueguard.claims-0] as a transaction's "
				+ "until this open transaction ends: [zombie-1 (Ongoing, open 12 s of its 60 s timeout)]");
	}

	@Test
	void shouldLogADiagnosisOnceUntilItChangesOrTimePasses(CapturedOutput output) {
		stuck();
		this.answer = heldBack(List.of(), "valueguard.claims-0");
		check(Duration.ofSeconds(15));
		check(Duration.ofSeconds(15));
		check(Duration.ofSeconds(15));

		assertThat(lines(output, "has not been RUNNING")).isEqualTo(1);

		this.answer = heldBack(List.of(), "valueguard.claims-0", "valueguard.claims-1");
		check(Duration.ofSeconds(15));

		assertThat(lines(output, "has not been RUNNING")).isEqualTo(2);

		check(OffsetsWatch.REPEAT);

		assertThat(lines(output, "has not been RUNNING")).isEqualTo(3);
		assertThat(this.asked).hasSize(5);
	}

	@Test
	void shouldClearWhatItFoundOnceTheStageRunsAgain(CapturedOutput output) {
		stuck();
		this.answer = heldBack(List.of(), "valueguard.claims-0");
		check(Duration.ofSeconds(15));
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);

		check(Duration.ofSeconds(15));

		assertThat(this.watch.heldBack(KEYS).any()).isFalse();
		assertThat(output).contains("Stage valueguard-keys: the committed offsets of [valueguard.claims-0] are no "
				+ "longer held back (the stage is RUNNING)");
	}

	@Test
	void shouldClearWhatItFoundOnceTheBrokerHoldsNothingBack(CapturedOutput output) {
		stuck();
		this.answer = heldBack(List.of(), "valueguard.claims-0");
		check(Duration.ofSeconds(15));
		this.answer = HeldBackOffsets.none();

		check(Duration.ofSeconds(15));

		assertThat(this.watch.heldBack(KEYS).any()).isFalse();
		assertThat(output).contains("are no longer held back (the broker holds none back)");
	}

	@Test
	void shouldNotAskForAStageWithNoTaskHere() {
		List<StreamsMetadata> elsewhere = List.of(client(new HostInfo("there", 8080), CLAIMS_1));
		given(this.streams.metadataForAllStreamsClients()).willReturn(elsewhere);
		stuck();
		check(Duration.ofSeconds(15));

		assertThat(this.asked).isEmpty();
	}

	@Test
	void shouldLeaveAFailedStageToTheSupervisor() {
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
		check(Duration.ZERO);
		check(Duration.ofMinutes(5));

		assertThat(this.asked).isEmpty();
	}

	@Test
	void shouldCheckAQuarterOfTheThresholdApartWithinBounds() {
		assertThat(OffsetsWatch.checkInterval(Duration.ofMinutes(1))).isEqualTo(Duration.ofSeconds(15));
		assertThat(OffsetsWatch.checkInterval(Duration.ofMinutes(10))).isEqualTo(Duration.ofSeconds(15));
		assertThat(OffsetsWatch.checkInterval(Duration.ofSeconds(4))).isEqualTo(Duration.ofSeconds(1));
		assertThat(OffsetsWatch.checkInterval(Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
	}

	@Test
	void shouldKeepWhatItKnewWhenTheBrokerDoesNotAnswer() {
		OffsetsWatch failing = new OffsetsWatch(this.clients, mock(KafkaAdmin.class), Duration.ofMinutes(1),
				Duration.ofSeconds(15), (group, assigned, openAtLeast) -> {
					throw new IllegalStateException("no broker");
				}, this.nanos::get);
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		failing.checkAll();
		this.nanos.addAndGet(Duration.ofMinutes(2).toNanos());

		failing.checkAll();

		assertThat(failing.heldBack(KEYS).any()).isFalse();
	}

	/** The stage out of RUNNING since the first check, one minute ago. */
	private void stuck() {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		check(Duration.ZERO);
		this.nanos.addAndGet(Duration.ofMinutes(1).toNanos());
	}

	private void check(Duration later) {
		this.nanos.addAndGet(later.toNanos());
		this.watch.checkAll();
	}

	private static StreamsMetadata client(HostInfo host, TopicPartition partition) {
		StreamsMetadata client = mock(StreamsMetadata.class);
		given(client.hostInfo()).willReturn(host);
		given(client.topicPartitions()).willReturn(Set.of(partition));
		return client;
	}

	private static HeldBackOffsets heldBack(List<HeldBackOffsets.OpenTransaction> open, String... partitions) {
		return new HeldBackOffsets(new TreeSet<>(List.of(partitions)), 27, "1 (broker-1:9092)", open);
	}

	private static long lines(CapturedOutput output, String text) {
		return output.getOut().lines().filter((line) -> line.contains(text)).count();
	}

}
