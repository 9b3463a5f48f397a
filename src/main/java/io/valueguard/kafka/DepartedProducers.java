package io.valueguard.kafka;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * Fences the exactly-once producers of instances that left a stage's group with a transaction open. An instance
 * that crashes mid-transaction leaves it open until the transaction coordinator aborts it: at its timeout (10 s in
 * Kafka Streams) and the coordinator's next check for timed-out transactions (every 10 s by default). Until then the
 * group coordinator holds back the input offsets it committed, so the instance that takes the crashed one's task over
 * waits to start it, and its records hold back every read_committed reader of the partitions it wrote: the other
 * stage's tasks wait at the last stable offset. An instance that restarts with its state directory fences its own
 * producers when it starts them; one that comes back on a wiped directory, or not at all, does not.
 * <p>
 * So for a while after a stage last rebalanced (a member joined or left its group, or the stage started), every
 * second this asks the broker for its producers' open transactions and the group's members, and fences those of a
 * process that has no stream thread in the group: it left (or was removed at its session timeout), so its
 * transaction can never commit, and aborting it now is what the broker does later. Kafka Streams names a producer
 * after its process, which is how this tells; with a {@code client.id} set by hand the members do not say their
 * process, and nothing is fenced.
 * A fenced instance that was only frozen finds itself fenced when it wakes, as it would find itself out of the group,
 * and rejoins.
 */
@Component
public class DepartedProducers extends StageWatcher {

	private static final Log logger = LogFactory.getLog(DepartedProducers.class);

	static final Duration CHECK_INTERVAL = Duration.ofSeconds(1);

	/**
	 * How long after a stage last rebalanced its group is watched: beyond the time a departed instance's
	 * transaction stays open anyway (Kafka Streams' 10 s transaction timeout and the broker's 10 s check).
	 */
	static final Duration WATCH = Duration.ofSeconds(30);

	/** How long each admin request may take. */
	static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(5);

	private static final class Stage {

		long watchUntilNanos;

		boolean watching;

		boolean unknownMembersLogged;

		boolean failureLogged;

		final AtomicLong fenced = new AtomicLong();

	}

	private final LongSupplier nanoTime;

	/** Given by tests; otherwise one over {@link #admin}. */
	private final @Nullable GroupTransactions broker;

	private final Map<String, Stage> stages = new ConcurrentHashMap<>();

	@Autowired
	public DepartedProducers(StreamsClients clients, KafkaAdmin kafkaAdmin, ValueGuardProperties properties) {
		this(clients, kafkaAdmin, properties.streams().fenceDepartedProducers(), null, System::nanoTime);
	}

	/** With a given broker and clock: tests drive the checks themselves. */
	DepartedProducers(StreamsClients clients, KafkaAdmin kafkaAdmin, boolean enabled,
			@Nullable GroupTransactions broker, LongSupplier nanoTime) {
		super("valueguard-departed-producers", CHECK_INTERVAL, clients, kafkaAdmin, enabled);
		this.broker = broker;
		this.nanoTime = nanoTime;
	}

	/** How many producers of the stage's departed instances this instance has fenced since it started. */
	public long fenced(String applicationId) {
		Stage stage = this.stages.get(applicationId);
		return (stage != null) ? stage.fenced.get() : 0;
	}

	/** @return whether the stage's group is watched now */
	@Override
	boolean check(String applicationId, @Nullable KafkaStreams streams) {
		long now = this.nanoTime.getAsLong();
		Stage stage = this.stages.computeIfAbsent(applicationId, (id) -> new Stage());
		if (streams == null) {
			return false;
		}
		// a join or a departure rebalances the stage; one that failed or stops is the supervisor's
		KafkaStreams.State state = streams.state();
		if (state == KafkaStreams.State.REBALANCING || state == KafkaStreams.State.CREATED) {
			stage.watchUntilNanos = now + WATCH.toNanos();
			stage.watching = true;
		}
		if (!stage.watching || now - stage.watchUntilNanos >= 0) {
			stage.watching = false;
			return false;
		}
		try {
			fenceDeparted(applicationId, stage, streams);
			stage.failureLogged = false;
		}
		catch (Exception ex) {
			// a broker that is down or busy is asked again a second later; a refusal is worth a line
			if (!passing(ex) && !stage.failureLogged) {
				stage.failureLogged = true;
				logger.info("Could not look for or fence producers of instances that left the group " + applicationId
						+ " (" + ex + "); a crashed instance's open transaction ends at its timeout instead");
			}
			logger.debug("Could not look for departed producers of " + applicationId, ex);
		}
		return true;
	}

	private void fenceDeparted(String applicationId, Stage stage, KafkaStreams streams) throws Exception {
		GroupTransactions group = broker();
		List<GroupTransactions.OpenTransaction> open = group.open(applicationId);
		if (open.isEmpty()) {
			return;
		}
		// members after transactions: a producer whose process joined since the listing is then seen as a member
		Set<String> members = group.memberProcesses(applicationId);
		if (members == null) {
			if (!stage.unknownMembersLogged) {
				stage.unknownMembersLogged = true;
				logger.info("The members of group " + applicationId + " do not name their process in their client "
						+ "ids (client.id set by hand?): producers of instances that left it are not fenced, and a "
						+ "crashed instance's open transaction ends at its timeout");
			}
			return;
		}
		Set<String> own = ownProcesses(applicationId, streams);
		List<GroupTransactions.OpenTransaction> departed = open.stream()
			.filter((transaction) -> !members.contains(transaction.process()) && !own.contains(transaction.process()))
			.toList();
		if (departed.isEmpty()) {
			return;
		}
		group.fence(departed.stream().map(GroupTransactions.OpenTransaction::transactionalId).toList());
		stage.fenced.addAndGet(departed.size());
		for (GroupTransactions.OpenTransaction transaction : departed) {
			logger.warn("Fenced producer " + transaction.transactionalId() + " of an instance that left group "
					+ applicationId + " with a transaction open for " + transaction.openMs() + " ms (its timeout "
					+ transaction.timeoutMs() + " ms): the input offsets and records it held back are released now");
		}
	}

	/** Whether the broker could not answer now (down, moving, busy), rather than refused. */
	private static boolean passing(Exception ex) {
		Throwable cause = (ex instanceof ExecutionException && ex.getCause() != null) ? ex.getCause() : ex;
		return cause instanceof TimeoutException || cause instanceof RetriableException;
	}

	/** This instance's own process of the stage, whatever the broker says of the group. */
	private static Set<String> ownProcesses(String applicationId, KafkaStreams streams) {
		Set<String> own = new HashSet<>();
		for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
			String process = StreamsClientIds.processOfConsumer(applicationId, thread.consumerClientId());
			if (process != null) {
				own.add(process);
			}
		}
		return own;
	}

	private GroupTransactions broker() {
		if (this.broker != null) {
			return this.broker;
		}
		// opened while a group is watched, closed once none is
		return new AdminGroupTransactions(this.admin.get(), REQUEST_TIMEOUT.toMillis());
	}

}
