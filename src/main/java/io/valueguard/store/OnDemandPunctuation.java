package io.valueguard.store;

import java.time.Duration;

import org.apache.kafka.streams.processor.Cancellable;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.Punctuator;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.jspecify.annotations.Nullable;

/**
 * A wall-clock punctuation that is scheduled only while a store holds work for it. Kafka Streams marks a task as
 * needing a commit after every punctuation, whether it did anything or not; a punctuation on a fixed schedule made
 * an idle instance commit an empty transaction per stage every commit interval (18 a second, measured), and a
 * scheduled commit that started right after a prompt one met CONCURRENT_TRANSACTIONS at the broker and stalled the
 * stage (docs/benchmarks.md, "Synchronous claims: where the time goes").
 */
final class OnDemandPunctuation {

	private final Duration interval;

	private final Punctuator punctuator;

	private @Nullable Cancellable scheduled;

	OnDemandPunctuation(Duration interval, Punctuator punctuator) {
		this.interval = interval;
		this.punctuator = punctuator;
	}

	/**
	 * Work arrived: the punctuation fires {@link #interval} from now, and every interval after that until
	 * {@link #cancel}. From processing or a punctuation, while Kafka Streams has the store's processor as the current
	 * node.
	 */
	void schedule(ProcessorContext<?, ?> context) {
		if (this.scheduled == null) {
			this.scheduled = context.schedule(this.interval, PunctuationType.WALL_CLOCK_TIME, this.punctuator);
		}
	}

	Duration interval() {
		return this.interval;
	}

	/** The work is done. Safe at any time, also while the task commits or closes. */
	void cancel() {
		if (this.scheduled != null) {
			this.scheduled.cancel();
			this.scheduled = null;
		}
	}

}
