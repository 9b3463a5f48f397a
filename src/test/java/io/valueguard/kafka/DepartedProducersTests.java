package io.valueguard.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

import io.valueguard.kafka.GroupTransactions.OpenTransaction;
import org.apache.kafka.common.errors.TransactionalIdAuthorizationException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.ThreadMetadata;
import org.jspecify.annotations.Nullable;
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

/** Which producers the fencer fences, and when it asks the broker at all. */
@ExtendWith(OutputCaptureExtension.class)
class DepartedProducersTests {

	private static final String KEYS = "valueguard-keys";

	private static final String HERE = "11111111-1111-4111-8111-111111111111";

	private static final String THERE = "22222222-2222-4222-8222-222222222222";

	private static final String GONE = "33333333-3333-4333-8333-333333333333";

	private final StreamsClients clients = mock(StreamsClients.class);

	private final StreamsBuilderFactoryBean factory = mock(StreamsBuilderFactoryBean.class);

	private final KafkaStreams streams = mock(KafkaStreams.class);

	private final AtomicLong nanos = new AtomicLong();

	private final Broker broker = new Broker();

	private final DepartedProducers fencer = new DepartedProducers(this.clients, mock(KafkaAdmin.class), true,
			this.broker, this.nanos::get);

	/** A stand-in for the broker: the group's members and open transactions, and what was fenced. */
	private static final class Broker implements GroupTransactions {

		@Nullable Set<String> members = Set.of();

		List<OpenTransaction> open = List.of();

		final List<Collection<String>> fenced = new ArrayList<>();

		int asked;

		@Nullable RuntimeException failure;

		@Override
		public @Nullable Set<String> memberProcesses(String group) {
			assertThat(group).isEqualTo(KEYS);
			return this.members;
		}

		@Override
		public List<OpenTransaction> open(String group) {
			assertThat(group).isEqualTo(KEYS);
			this.asked++;
			return this.open;
		}

		@Override
		public void fence(Collection<String> transactionalIds) {
			if (this.failure != null) {
				throw this.failure;
			}
			this.fenced.add(List.copyOf(transactionalIds));
			// a fenced producer's transaction is aborted
			this.open = this.open.stream()
				.filter((transaction) -> !transactionalIds.contains(transaction.transactionalId()))
				.toList();
		}

	}

	@BeforeEach
	void stage() {
		Properties configuration = new Properties();
		configuration.put(StreamsConfig.APPLICATION_ID_CONFIG, KEYS);
		given(this.factory.getStreamsConfiguration()).willReturn(configuration);
		given(this.factory.getKafkaStreams()).willReturn(this.streams);
		given(this.clients.all()).willReturn(List.of(this.factory));
		ThreadMetadata thread = mock(ThreadMetadata.class);
		given(thread.consumerClientId()).willReturn(KEYS + "-" + HERE + "-StreamThread-1-consumer");
		Set<ThreadMetadata> threads = Set.of(thread);
		given(this.streams.metadataForLocalThreads()).willReturn(threads);
	}

	@Test
	void shouldFenceTheOpenTransactionsOfProcessesThatLeftTheGroup() {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		this.broker.members = Set.of(HERE, THERE);
		this.broker.open = List.of(open(THERE, 1), open(GONE, 1), open(GONE, 2));

		check(Duration.ofSeconds(1));

		assertThat(this.broker.fenced).containsExactly(List.of(id(GONE, 1), id(GONE, 2)));
		assertThat(this.fencer.fenced(KEYS)).isEqualTo(2);
	}

	@Test
	void shouldNeverFenceItsOwnProducersOrThoseOfMembers(CapturedOutput output) {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		// this instance itself is not in the member list (put out of the group while paused)
		this.broker.members = Set.of(THERE);
		this.broker.open = List.of(open(HERE, 1), open(THERE, 1));

		check(Duration.ofSeconds(1));

		assertThat(this.broker.fenced).isEmpty();
		assertThat(output).doesNotContain("Fenced producer");
	}

	@Test
	void shouldFenceNothingWhenAMemberDoesNotNameItsProcess(CapturedOutput output) {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		this.broker.members = null;
		this.broker.open = List.of(open(GONE, 1));

		check(Duration.ofSeconds(1));
		check(Duration.ofSeconds(1));

		assertThat(this.broker.fenced).isEmpty();
		assertThat(output.getOut().split("do not name their process", -1)).hasSize(2);
	}

	@Test
	void shouldLookOnlyWhileTheStageRebalancesAndForAWhileAfter() {
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
		this.broker.members = Set.of(HERE);
		check(Duration.ofMinutes(5));
		assertThat(this.broker.asked).isZero();

		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		check(Duration.ofSeconds(1));
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
		check(DepartedProducers.WATCH.minusSeconds(1));
		assertThat(this.broker.asked).isEqualTo(2);

		// the instance that crashed is removed from the group at its session timeout, after the stage ran again
		this.broker.open = List.of(open(GONE, 1));
		check(Duration.ofMillis(500));
		assertThat(this.broker.fenced).containsExactly(List.of(id(GONE, 1)));

		check(Duration.ofSeconds(1));
		check(Duration.ofMinutes(5));
		assertThat(this.broker.asked).isEqualTo(3);
	}

	@Test
	void shouldLogOnceWhenTheBrokerRefusesAndLookAgainLater(CapturedOutput output) {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		this.broker.members = Set.of(HERE);
		this.broker.open = List.of(open(GONE, 1));
		this.broker.failure = new TransactionalIdAuthorizationException("Transactional Id authorization failed.");

		check(Duration.ofSeconds(1));
		check(Duration.ofSeconds(1));

		assertThat(output.getOut().split("Could not look for or fence producers", -1)).hasSize(2);
		assertThat(this.fencer.fenced(KEYS)).isZero();

		this.broker.failure = null;
		check(Duration.ofSeconds(1));

		assertThat(this.broker.fenced).containsExactly(List.of(id(GONE, 1)));
		assertThat(output).contains("Fenced producer " + id(GONE, 1) + " of an instance that left group " + KEYS);
	}

	@Test
	void shouldSayNothingAboveDebugWhileTheBrokerCannotAnswer(CapturedOutput output) {
		given(this.streams.state()).willReturn(KafkaStreams.State.REBALANCING);
		this.broker.members = Set.of(HERE);
		this.broker.open = List.of(open(GONE, 1));
		this.broker.failure = new org.apache.kafka.common.errors.TimeoutException("Timed out waiting for a node");

		check(Duration.ofSeconds(1));
		check(Duration.ofSeconds(1));

		assertThat(output).doesNotContain("Could not look for or fence producers");
		this.broker.failure = null;
		check(Duration.ofSeconds(1));
		assertThat(this.broker.fenced).containsExactly(List.of(id(GONE, 1)));
	}

	@Test
	void shouldNotStartWhenSwitchedOff() {
		DepartedProducers off = new DepartedProducers(this.clients, mock(KafkaAdmin.class), false, this.broker,
				this.nanos::get);

		off.start();

		assertThat(off.isRunning()).isFalse();
	}

	private void check(Duration later) {
		this.nanos.addAndGet(later.toNanos());
		this.fencer.checkAll();
	}

	private static OpenTransaction open(String process, int thread) {
		return new OpenTransaction(id(process, thread), process, 4_000, 10_000);
	}

	private static String id(String process, int thread) {
		return KEYS + "-" + process + "-" + thread;
	}

}
