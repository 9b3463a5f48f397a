package io.valueguard.kafka;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.LagInfo;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.jspecify.annotations.Nullable;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * How far each local store partition is behind the end of its changelog (KIP-535). Asking Kafka Streams costs a
 * broker round trip, so this refreshes on a schedule ({@code valueguard.query.lag-refresh-interval}) and every reader
 * (stale reads, readiness, {@code /api/instances}, metrics) uses the last snapshot.
 */
@Component
public class StoreLags {

	private static final Log logger = LogFactory.getLog(StoreLags.class);

	/** One local store partition: its role here and its lag. */
	public record PartitionLag(String store, int partition, boolean active, long offsetLag, long currentOffset,
			long endOffset) {

	}

	private final StreamsClients clients;

	/** The lags read at one moment; {@code complete} when both stages were running then. */
	public record Snapshot(List<PartitionLag> lags, long takenAtMillis, boolean complete) {

	}

	private final AtomicReference<Snapshot> snapshot = new AtomicReference<>(new Snapshot(List.of(), 0, false));

	public StoreLags(StreamsClients clients) {
		this.clients = clients;
	}

	@Scheduled(fixedDelayString = "${valueguard.query.lag-refresh-interval:1s}")
	public void refresh() {
		List<PartitionLag> lags = new ArrayList<>();
		boolean complete = true;
		for (String store : List.of(StreamsClients.BINDINGS, StreamsClients.OWNERS)) {
			KafkaStreams streams = this.clients.forStore(store).orElse(null);
			if (streams == null || streams.state() != KafkaStreams.State.RUNNING) {
				complete = false;
			}
			if (streams != null) {
				List<PartitionLag> read = read(store, streams);
				complete &= read != null;
				lags.addAll((read != null) ? read : List.of());
			}
		}
		this.snapshot.set(new Snapshot(List.copyOf(lags), System.currentTimeMillis(), complete));
	}

	private static @Nullable List<PartitionLag> read(String store, KafkaStreams streams) {
		KafkaStreams.State state = streams.state();
		if (state != KafkaStreams.State.RUNNING && state != KafkaStreams.State.REBALANCING) {
			return null;
		}
		try {
			Set<Integer> active = activePartitions(streams);
			Map<Integer, LagInfo> lags = streams.allLocalStorePartitionLags().getOrDefault(store, Map.of());
			List<PartitionLag> result = new ArrayList<>();
			lags.forEach((partition, lag) -> result.add(new PartitionLag(store, partition, active.contains(partition),
					lag.offsetLag(), lag.currentOffsetPosition(), lag.endOffsetPosition())));
			return result;
		}
		catch (RuntimeException ex) {
			// a rebalance can pull tasks away mid-call; the next refresh will see the new assignment
			logger.debug("Could not read store lags of " + store, ex);
			return null;
		}
	}

	/** The partitions this instance's client is active for (its active tasks). */
	public static Set<Integer> activePartitions(KafkaStreams streams) {
		Set<Integer> partitions = new HashSet<>();
		for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
			for (TaskMetadata task : thread.activeTasks()) {
				partitions.add(task.taskId().partition());
			}
		}
		return partitions;
	}

	public List<PartitionLag> all() {
		return this.snapshot.get().lags();
	}

	public Snapshot snapshot() {
		return this.snapshot.get();
	}

	/** The lag of one local store partition, if this instance holds it. */
	public OptionalLong lag(String store, int partition) {
		Optional<PartitionLag> found = all().stream()
			.filter((lag) -> lag.store().equals(store) && lag.partition() == partition)
			.findFirst();
		return found.map((lag) -> OptionalLong.of(lag.offsetLag())).orElse(OptionalLong.empty());
	}

}
