package io.valueguard.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.utils.Utils;
import org.jspecify.annotations.Nullable;

/**
 * The {@link OffsetsInspector} over Kafka's admin API. The stable offset fetch is the one a read_committed consumer
 * makes when its task starts: the broker answers it with an error for a partition whose offsets a transaction it has not
 * cleared committed, and the admin client leaves such a partition out of its answer, so the partitions the plain fetch
 * has and the stable one lacks are the ones held back.
 * <p>
 * Only the stage's own producers commit its group's offsets, and Kafka Streams names their transactional ids after the
 * application id ({@code <application.id>-<process id>-<thread index>}); a transaction of another application's group
 * whose offsets share the partition of {@code __consumer_offsets} holds nothing of this group's back. And a transaction
 * that keeps offsets held back through a stall was open when the stall began: the same group's instances that run
 * open and end a transaction every commit interval. So the transactions listed are the group's own open for long
 * enough ({@code openAtLeast}), and where none is, no transaction will clear the offsets.
 */
final class AdminOffsetsInspector implements OffsetsInspector {

	private static final Set<TransactionState> OPEN = Set.of(TransactionState.ONGOING,
			TransactionState.PREPARE_COMMIT, TransactionState.PREPARE_ABORT, TransactionState.PREPARE_EPOCH_FENCE);

	private final Admin admin;

	private final long timeoutMs;

	AdminOffsetsInspector(Admin admin, long timeoutMs) {
		this.admin = admin;
		this.timeoutMs = timeoutMs;
	}

	@Override
	public HeldBackOffsets inspect(String group, Set<TopicPartition> assigned, Duration openAtLeast) throws Exception {
		TreeSet<String> heldBack = new TreeSet<>();
		Set<TopicPartition> stable = committed(group, true);
		for (TopicPartition partition : committed(group, false)) {
			if (assigned.contains(partition) && !stable.contains(partition)) {
				heldBack.add(partition.toString());
			}
		}
		if (heldBack.isEmpty()) {
			return HeldBackOffsets.none();
		}
		int offsetsPartition = offsetsPartitionOf(group);
		return new HeldBackOffsets(heldBack, offsetsPartition, coordinatorOf(group),
				openTransactionsOn(offsetsPartition, group, openAtLeast.toMillis()));
	}

	/** The partition of {@code __consumer_offsets} that holds a group, as the group coordinator places it. */
	static int offsetsPartitionOf(String group, int offsetsPartitions) {
		return Utils.abs(group.hashCode()) % offsetsPartitions;
	}

	/** Whether a transactional id is one a Kafka Streams producer of the application (the group) would have. */
	static boolean ofGroup(String group, String transactionalId) {
		return StreamsClientIds.processOfProducer(group, transactionalId) != null;
	}

	private Set<TopicPartition> committed(String group, boolean stable) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> offsets = this.admin
			.listConsumerGroupOffsets(Map.of(group, new ListConsumerGroupOffsetsSpec()),
					new ListConsumerGroupOffsetsOptions().requireStable(stable))
			.partitionsToOffsetAndMetadata(group)
			.get(this.timeoutMs, TimeUnit.MILLISECONDS);
		Set<TopicPartition> partitions = new HashSet<>();
		offsets.forEach((partition, offset) -> {
			if (offset != null) {
				partitions.add(partition);
			}
		});
		return partitions;
	}

	/** The partition as the group coordinator places a group; -1 when the offsets topic may not be described. */
	private int offsetsPartitionOf(String group) {
		try {
			int partitions = this.admin.describeTopics(List.of(Topic.GROUP_METADATA_TOPIC_NAME))
				.allTopicNames()
				.get(this.timeoutMs, TimeUnit.MILLISECONDS)
				.get(Topic.GROUP_METADATA_TOPIC_NAME)
				.partitions()
				.size();
			return offsetsPartitionOf(group, partitions);
		}
		catch (Exception ex) {
			// a principal without Describe on the internal topic: the diagnosis names the partition less exactly
			return -1;
		}
	}

	private @Nullable String coordinatorOf(String group) {
		try {
			ConsumerGroupDescription description = this.admin.describeConsumerGroups(List.of(group))
				.describedGroups()
				.get(group)
				.get(this.timeoutMs, TimeUnit.MILLISECONDS);
			Node node = description.coordinator();
			return (node != null) ? node.id() + " (" + node.host() + ":" + node.port() + ")" : null;
		}
		catch (Exception ex) {
			return null;
		}
	}

	private List<HeldBackOffsets.OpenTransaction> openTransactionsOn(int offsetsPartition, String group,
			long openAtLeastMs) throws Exception {
		TopicPartition holder = new TopicPartition(Topic.GROUP_METADATA_TOPIC_NAME, Math.max(offsetsPartition, 0));
		long now = System.currentTimeMillis();
		List<HeldBackOffsets.OpenTransaction> writers = new ArrayList<>();
		AdminGroupTransactions.described(this.admin, group, OPEN, this.timeoutMs).forEach((id, description) -> {
			boolean writesOffsets = (offsetsPartition >= 0) ? description.topicPartitions().contains(holder)
					: description.topicPartitions()
						.stream()
						.anyMatch((partition) -> Topic.GROUP_METADATA_TOPIC_NAME.equals(partition.topic()));
			long openMs = AdminGroupTransactions.openMs(description, now);
			if (writesOffsets && openMs >= openAtLeastMs) {
				writers.add(new HeldBackOffsets.OpenTransaction(id, description.state().toString(), openMs,
						description.transactionTimeoutMs()));
			}
		});
		writers.sort((a, b) -> a.transactionalId().compareTo(b.transactionalId()));
		return writers;
	}

}
