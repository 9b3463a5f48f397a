package io.valueguard.store;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.ProcessorSupplier;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.processor.internals.InternalProcessorContext;
import org.apache.kafka.streams.state.StoreBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.mockito.ArgumentCaptor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

/**
 * The outbox in a real task: a processor turns each input record into messages ({@code partition:bytes:name}, or
 * {@code partition:bytes:name:timestamp} for another timestamp than the record's, comma separated) and sends each group as {@code partition=names}. The driver commits after every input record, so
 * whatever a record left in the outbox goes out at that commit.
 */
class OutboxTests {

	private final TopologyTestDriver driver;

	private final TestInputTopic<String, String> input;

	private final TestOutputTopic<String, String> output;

	OutboxTests(@TempDir Path stateDirectory) {
		StreamsBuilder builder = new StreamsBuilder();
		builder.stream("in", Consumed.with(Serdes.String(), Serdes.String()))
			.process(new Messages())
			.to("out", Produced.with(Serdes.String(), Serdes.String()));
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "outbox-test");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
		config.put(StreamsConfig.STATE_DIR_CONFIG, stateDirectory.toString());
		this.driver = new TopologyTestDriver(builder.build(), config, Instant.ofEpochMilli(1_000_000));
		this.input = this.driver.createInputTopic("in", new StringSerializer(), new StringSerializer());
		this.output = this.driver.createOutputTopic("out", new StringDeserializer(), new StringDeserializer());
	}

	@AfterEach
	void close() {
		this.driver.close();
	}

	@Test
	void shouldSendEachPartitionsMessagesAsOneRecordWhenTheTaskCommits() {
		this.input.pipeInput("x", "1:10:a,0:10:b,1:10:c,3:10:d,0:10:e", 500);

		assertThat(this.output.readRecordsToList()).extracting((record) -> record.value())
			.containsExactly("0=b,e", "1=a,c", "3=d");
	}

	@Test
	void shouldSendAGroupAsSoonAsItReachesItsBudget() {
		int third = Outbox.BUDGET_BYTES / 3 + 1;
		this.input.pipeInput("x", "0:%d:a,0:%d:b,1:%d:c,0:%d:d,0:1:e".formatted(third, third, third, third), 500);

		// a, b and d reach the budget while the record is processed; e waits for the commit
		assertThat(this.output.readRecordsToList()).extracting((record) -> record.value())
			.containsExactly("0=a,b,d", "0=e", "1=c");
	}

	@Test
	void shouldStampEachGroupWithTheLatestTimestampOfItsMessages() {
		this.input.pipeInput("x", "0:10:a:300,0:10:b:700,0:10:c:500,1:10:d:100", 900);

		assertThat(this.output.readRecordsToList()).extracting((record) -> record.value() + "@" + record.timestamp())
			.containsExactly("0=a,b,c@700", "1=d@100");
	}

	@Test
	void shouldSendNothingWhenEmpty() {
		this.input.pipeInput("x", "", 500);
		this.driver.advanceWallClockTime(Outbox.LINGER.multipliedBy(2));

		assertThat(this.output.readRecordsToList()).isEmpty();
	}

	/**
	 * The scheduled send, with the whole cluster gone: the producer gives up waiting for metadata, and the messages
	 * stay, in order, for the next attempt (a send fails before its record is appended).
	 */
	@Test
	@SuppressWarnings("unchecked")
	void shouldKeepMessagesWhenKafkaDoesNotAnswerInTime() {
		Outbox<String> outbox = Outbox.<String>builder("messages").build();
		InternalProcessorContext<String, String> context = taskContext(mock(Cancellable.class));
		List<String> sent = new ArrayList<>();
		AtomicBoolean kafkaGone = new AtomicBoolean(true);
		outbox.connect(context, (partition, entries, timestamp, waitedFor) -> {
			if (kafkaGone.get() && partition == 1) {
				throw new StreamsException("Exception caught while punctuating",
						new TimeoutException("Topic commands not present in metadata after 60000 ms."));
			}
			sent.add(partition + "=" + String.join(",", entries) + "@" + timestamp + (waitedFor ? " waited for" : ""));
		});
		outbox.add(0, "a", 10, 100, false);
		outbox.add(1, "b", 10, 300, false);
		outbox.add(1, "c", 10, 200, true);
		ArgumentCaptor<Punctuator> schedule = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Outbox.LINGER), eq(PunctuationType.WALL_CLOCK_TIME), schedule.capture());

		schedule.getValue().punctuate(0);
		outbox.add(1, "d", 10, 100, false);
		kafkaGone.set(false);
		schedule.getValue().punctuate(100);

		assertThat(sent).containsExactly("0=a@100", "1=b,c,d@300 waited for");
	}

	@Test
	@SuppressWarnings("unchecked")
	void shouldLetOtherFailuresOfTheScheduledSendThrough() {
		Outbox<String> outbox = Outbox.<String>builder("messages").build();
		InternalProcessorContext<String, String> context = taskContext(mock(Cancellable.class));
		outbox.connect(context, (partition, entries, timestamp, waitedFor) -> {
			throw new StreamsException("fenced");
		});
		outbox.add(0, "a", 10, 100, false);
		ArgumentCaptor<Punctuator> schedule = ArgumentCaptor.forClass(Punctuator.class);
		verify(context).schedule(eq(Outbox.LINGER), eq(PunctuationType.WALL_CLOCK_TIME), schedule.capture());

		assertThatExceptionOfType(StreamsException.class).isThrownBy(() -> schedule.getValue().punctuate(0))
			.withMessage("fenced");
	}

	/**
	 * A punctuation makes Kafka Streams commit its task: one that fired on an idle task made it commit an empty
	 * transaction every interval, so the scheduled send is there only while messages wait.
	 */
	@Test
	void shouldScheduleItsSendOnlyWhileItHoldsMessages() {
		Outbox<String> outbox = Outbox.<String>builder("messages").build();
		Cancellable linger = mock(Cancellable.class);
		InternalProcessorContext<String, String> context = taskContext(linger);
		List<String> sent = new ArrayList<>();
		outbox.connect(context, (partition, entries, timestamp, waitedFor) -> sent.add(partition + "=" + String.join(",", entries)));
		verify(context, never()).schedule(any(), any(), any());

		outbox.add(0, "a", 10, 100, false);
		outbox.add(1, "b", 10, 100, false);
		verify(context, times(1)).schedule(eq(Outbox.LINGER), eq(PunctuationType.WALL_CLOCK_TIME), any());
		verify(linger, never()).cancel();

		outbox.flushCache();
		assertThat(sent).containsExactly("0=a", "1=b");
		verify(linger).cancel();

		outbox.add(0, "c", 10, 100, false);
		verify(context, times(2)).schedule(eq(Outbox.LINGER), eq(PunctuationType.WALL_CLOCK_TIME), any());

		// Kafka Streams reuses the store for a new task of the processor: the new task schedules its own send
		outbox.connect(context, (partition, entries, timestamp, waitedFor) -> sent.add(partition + "=" + String.join(",", entries)));
		verify(linger, times(2)).cancel();
		outbox.add(0, "d", 10, 100, false);
		verify(context, times(3)).schedule(eq(Outbox.LINGER), eq(PunctuationType.WALL_CLOCK_TIME), any());
	}

	@Test
	void shouldSayOfAGroupWhetherSomeoneWaitsForOneOfItsMessages() {
		Outbox<String> outbox = Outbox.<String>builder("messages").build();
		List<String> sent = new ArrayList<>();
		outbox.connect(taskContext(mock(Cancellable.class)), (partition, entries, timestamp,
				waitedFor) -> sent.add(partition + "=" + String.join(",", entries) + (waitedFor ? " waited for" : "")));
		outbox.add(0, "a", 10, 100, false);
		outbox.add(0, "b", 10, 100, true);
		outbox.add(1, "c", 10, 100, false);
		outbox.flushCache();
		// the next group of the same partition starts unmarked
		outbox.add(0, "d", 10, 100, false);
		outbox.flushCache();

		assertThat(sent).containsExactly("0=a,b waited for", "1=c", "0=d");
	}

	/** A task's context whose punctuations can be cancelled, as Kafka Streams' are, each with {@code cancellable}. */
	@SuppressWarnings("unchecked")
	private static InternalProcessorContext<String, String> taskContext(Cancellable cancellable) {
		InternalProcessorContext<String, String> context = mock(InternalProcessorContext.class);
		when(context.schedule(any(), any(), any())).thenReturn(cancellable);
		return context;
	}

	private static final class Messages implements ProcessorSupplier<String, String, String, String> {

		private final StoreBuilder<Outbox<String>> outbox = Outbox.builder("messages");

		@Override
		public java.util.Set<StoreBuilder<?>> stores() {
			return java.util.Set.of(this.outbox);
		}

		@Override
		public Processor<String, String, String, String> get() {
			return new Processor<>() {

				private Outbox<String> outbox;

				@Override
				public void init(ProcessorContext<String, String> context) {
					this.outbox = context.getStateStore("messages");
					this.outbox.connect(context, (partition, entries, timestamp, waitedFor) -> context
						.forward(new Record<>(null, partition + "=" + String.join(",", entries), timestamp)));
				}

				@Override
				public void process(Record<String, String> record) {
					for (String message : List.of(record.value().split(","))) {
						if (message.isEmpty()) {
							continue;
						}
						String[] fields = message.split(":");
						long timestamp = (fields.length > 3) ? Long.parseLong(fields[3]) : record.timestamp();
						this.outbox.add(Integer.parseInt(fields[0]), fields[2], Integer.parseInt(fields[1]), timestamp, false);
					}
				}

			};
		}

	}

}
