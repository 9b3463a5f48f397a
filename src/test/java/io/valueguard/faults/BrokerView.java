package io.valueguard.faults;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * What the broker says of the instances' transactions and groups, for a fault test whose instances did not become
 * ready: a group that never settles and an offset fetch that waits on an open transaction look the same from the
 * instances (REBALANCING, threads polling), and only the broker can tell them apart.
 */
final class BrokerView {

	private static final long TIMEOUT_SECONDS = 20;

	private BrokerView() {
	}

	/** A plain-text description; what the broker did not answer is named in it rather than thrown. */
	static String describe(String bootstrapServers) {
		StringBuilder view = new StringBuilder("--- the broker's view at " + Instant.now() + "\n");
		try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
				AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS) / 2,
				AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TimeUnit.SECONDS.toMillis(TIMEOUT_SECONDS)))) {
			transactions(admin, view);
			groups(admin, view);
		}
		catch (Exception ex) {
			view.append("the broker did not answer: ").append(ex).append('\n');
		}
		return view.toString();
	}

	private static void transactions(Admin admin, StringBuilder view) throws Exception {
		List<String> open = new ArrayList<>();
		for (TransactionListing listing : admin.listTransactions().all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
			view.append("transaction ")
				.append(listing.transactionalId())
				.append(' ')
				.append(listing.state())
				.append(" producer ")
				.append(listing.producerId())
				.append('\n');
			if (isOpen(listing.state())) {
				open.add(listing.transactionalId());
			}
		}
		if (open.isEmpty()) {
			return;
		}
		Map<String, TransactionDescription> described = admin.describeTransactions(open)
			.all()
			.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		long now = System.currentTimeMillis();
		described.forEach((id, description) -> view.append("open transaction ")
			.append(id)
			.append(' ')
			.append(description.state())
			.append(", begun ")
			.append(description.transactionStartTimeMs().stream().map((start) -> now - start).findFirst().orElse(-1))
			.append(" ms ago, timeout ")
			.append(description.transactionTimeoutMs())
			.append(" ms, partitions ")
			.append(description.topicPartitions())
			.append('\n'));
	}

	private static boolean isOpen(TransactionState state) {
		return state == TransactionState.ONGOING || state == TransactionState.PREPARE_COMMIT
				|| state == TransactionState.PREPARE_ABORT || state == TransactionState.PREPARE_EPOCH_FENCE;
	}

	private static void groups(Admin admin, StringBuilder view) throws Exception {
		List<String> ids = new ArrayList<>();
		for (GroupListing listing : admin.listGroups().all().get(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
			ids.add(listing.groupId());
		}
		Map<String, ConsumerGroupDescription> groups = admin.describeConsumerGroups(ids)
			.all()
			.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		for (ConsumerGroupDescription group : groups.values()) {
			view.append("group ")
				.append(group.groupId())
				.append(' ')
				.append(group.groupState())
				.append(", ")
				.append(group.members().size())
				.append(" members\n");
			for (MemberDescription member : group.members()) {
				view.append("  ")
					.append(member.groupInstanceId().orElse(member.consumerId()))
					.append(' ')
					.append(member.clientId())
					.append(" assigned ")
					.append(member.assignment().topicPartitions())
					.append('\n');
			}
			view.append("  committed offsets: ").append(committedOffsets(admin, group.groupId())).append('\n');
		}
	}

	// the stable fetch is the one a read_committed consumer makes when it takes a partition over; the broker holds back
	// a partition whose offsets a transaction it has not cleared committed, and the admin client leaves such a
	// partition out of its answer, so the partitions the plain fetch has and the stable one lacks are the held back
	private static String committedOffsets(Admin admin, String group) {
		try {
			Set<TopicPartition> committed = offsets(admin, group, false);
			Set<TopicPartition> heldBack = new TreeSet<>(Comparator.comparing(TopicPartition::toString));
			heldBack.addAll(committed);
			heldBack.removeAll(offsets(admin, group, true));
			return committed.size() + " partitions"
					+ (heldBack.isEmpty() ? ", none held back by a transaction"
							: "; held back as a transaction's, not yet cleared: " + heldBack);
		}
		catch (Exception ex) {
			return "no answer within " + TIMEOUT_SECONDS + " s: " + ex;
		}
	}

	private static Set<TopicPartition> offsets(Admin admin, String group, boolean stable) throws Exception {
		Map<TopicPartition, OffsetAndMetadata> offsets = admin
			.listConsumerGroupOffsets(Map.of(group, new ListConsumerGroupOffsetsSpec()),
					new ListConsumerGroupOffsetsOptions().requireStable(stable))
			.partitionsToOffsetAndMetadata(group)
			.get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
		Set<TopicPartition> partitions = new HashSet<>();
		offsets.forEach((partition, offset) -> {
			if (offset != null) {
				partitions.add(partition);
			}
		});
		return partitions;
	}

}
