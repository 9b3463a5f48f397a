package io.valueguard.kafka;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.kafka.config.StreamsBuilderFactoryBean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;

class StreamsSupervisorTests {

	private static final String KEYS = "valueguard-keys";

	private final StreamsClients clients = mock(StreamsClients.class);

	private final StreamsBuilderFactoryBean factory = mock(StreamsBuilderFactoryBean.class);

	private final KafkaStreams streams = mock(KafkaStreams.class);

	private final StreamThreadFailures failures = new StreamThreadFailures(TestProperties
		.of(Map.of("valueguard.streams.max-thread-replacements", 2, "valueguard.streams.thread-replacement-window",
				"1h")));

	private StreamsSupervisor supervisor;

	@BeforeEach
	void client() {
		Properties configuration = new Properties();
		configuration.put(StreamsConfig.APPLICATION_ID_CONFIG, KEYS);
		given(this.factory.getStreamsConfiguration()).willReturn(configuration);
		given(this.factory.getKafkaStreams()).willReturn(this.streams);
		given(this.factory.isRunning()).willReturn(true);
		given(this.clients.all()).willReturn(List.of(this.factory));
		// no backoff, two failed restarts allowed: the test drives the checks itself
		this.supervisor = supervisor("0s");
	}

	private StreamsSupervisor supervisor(String restartBackoff) {
		StreamsSupervisor supervisor = new StreamsSupervisor(this.clients, this.failures,
				TestProperties.of(Map.of("valueguard.streams.restart-backoff", restartBackoff,
						"valueguard.streams.max-restarts", 2)),
				Duration.ofHours(1));
		supervisor.start();
		return supervisor;
	}

	@AfterEach
	void stop() {
		this.supervisor.stop();
	}

	@Test
	void shouldLeaveRunningClientAlone() {
		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);

		this.supervisor.checkAll();
		this.supervisor.checkAll();

		verify(this.factory, never()).stop();
		assertThat(this.supervisor.gaveUp(KEYS)).isFalse();
	}

	@Test
	void shouldRestartClientInErrorAfterBackoff() {
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);

		this.supervisor.checkAll();
		verify(this.factory, never()).stop();
		this.supervisor.checkAll();

		verify(this.factory, times(1)).stop();
		verify(this.factory, times(1)).start();
		assertThat(this.supervisor.restarts(KEYS)).isEqualTo(1);
	}

	@Test
	void shouldGiveUpLivenessAfterMaxFailedRestartsButKeepTrying() {
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
		for (int i = 0; i < 6; i++) {
			this.supervisor.checkAll();
		}
		assertThat(this.supervisor.restarts(KEYS)).isEqualTo(3);
		assertThat(this.supervisor.gaveUp(KEYS)).isTrue();

		given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
		this.supervisor.checkAll();
		assertThat(this.supervisor.gaveUp(KEYS)).as("running again: alive again").isFalse();
	}

	@Test
	void shouldNotRestartWhileApplicationStops() {
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
		this.supervisor.stop();

		this.supervisor.checkAll();
		this.supervisor.checkAll();

		verify(this.factory, never()).stop();
	}

	@Test
	void shouldReplaceDeadThreadsThenShutDownClientBeyondTheLimit() {
		var handler = this.failures.handlerFor(KEYS);
		RuntimeException timeout = new RuntimeException("task timed out",
				new org.apache.kafka.common.errors.TimeoutException("broker gone"));

		assertThat(handler.handle(timeout)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
		assertThat(handler.handle(timeout)).isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
		assertThat(handler.handle(timeout)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
		assertThat(this.failures.lastCause(KEYS)).contains("task timed out").contains("broker gone");
	}

	@Test
	void shouldShutDownClientOnFatalError() {
		var handler = this.failures.handlerFor(KEYS);

		assertThat(handler.handle(new RuntimeException(new OutOfMemoryError("Java heap space"))))
			.isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
	}

	@Test
	void shouldRestartWholeClientWhenAThreadIsFencedFromItsGroup() {
		var handler = this.failures.handlerFor(KEYS);
		assertThat(handler.handle(fenced())).as("first death, yet no replacement thread under a new static id")
			.isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
		assertThat(this.failures.lastCause(KEYS)).contains("FencedInstanceIdException");
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
		this.supervisor.checkAll();
		this.supervisor.checkAll();

		verify(this.factory, times(1)).stop();
		verify(this.factory, times(1)).start();
		assertThat(this.supervisor.gaveUp(KEYS)).isFalse();
	}

	/**
	 * A fence is cured by the restart itself (the client's threads rejoin under their own static ids), so the first
	 * in a while restarts at once; one that repeats within a minute, as when two live instances share a name, waits
	 * its backoff like any failure.
	 */
	@Test
	void shouldRestartAFencedClientAtOnceAndAFenceThatRepeatsAfterItsBackoff() {
		this.supervisor.stop();
		StreamsSupervisor patient = supervisor("1h");
		try {
			assertThat(this.failures.handlerFor(KEYS).handle(fenced()))
				.isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
			given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
			patient.checkAll();
			verify(this.factory, times(1)).stop();
			verify(this.factory, times(1)).start();

			given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
			patient.checkAll();
			// the restarted client starts with a handler of its own, and is fenced again
			this.failures.handlerFor(KEYS).handle(fenced());
			given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
			patient.checkAll();
			patient.checkAll();
			verify(this.factory, times(1)).stop();

			// any other failure waits its backoff too
			given(this.streams.state()).willReturn(KafkaStreams.State.RUNNING);
			patient.checkAll();
			this.failures.handlerFor(KEYS).handle(new RuntimeException(new OutOfMemoryError("Java heap space")));
			given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
			patient.checkAll();
			verify(this.factory, times(1)).stop();
		}
		finally {
			patient.stop();
		}
	}

	private static RuntimeException fenced() {
		return new RuntimeException("Unexpected error in poll",
				new org.apache.kafka.common.errors.FencedInstanceIdException(
						"The broker rejected this static consumer since another consumer with the same "
								+ "group.instance.id has registered with a different member.id."));
	}

	@Test
	void shouldShutDownForGoodAndGoDeadAtOnceWhenKafkaRefusesAnOperation() {
		var handler = this.failures.handlerFor(KEYS);
		RuntimeException denied = new RuntimeException("Unexpected error in InitProducerId",
				new org.apache.kafka.common.errors.TransactionalIdAuthorizationException(
						"Transactional Id authorization failed."));

		assertThat(handler.handle(denied)).isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
		given(this.streams.state()).willReturn(KafkaStreams.State.ERROR);
		for (int i = 0; i < 5; i++) {
			this.supervisor.checkAll();
		}

		verify(this.factory, never()).stop();
		assertThat(this.supervisor.gaveUp(KEYS)).as("liveness DOWN at once, no retry loop").isTrue();
		assertThat(this.supervisor.refusal(KEYS)).isEqualTo(
				"TransactionalIdAuthorizationException: Transactional Id authorization failed.");
	}

}
