package io.valueguard.support;

import java.util.List;

import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.common.Cluster;

/**
 * An assignor that goes by Kafka Streams' protocol name, so that a plain consumer can join a Kafka Streams group: a
 * test's intruder that takes a stream thread's static membership away from it, as a member with its
 * {@code group.instance.id} does. It never assigns: a static member that replaces another in a stable group is handed
 * the old member's assignment without a rebalance.
 */
public class StreamsAssignorStandIn implements ConsumerPartitionAssignor {

	@Override
	public String name() {
		return "stream";
	}

	@Override
	public GroupAssignment assign(Cluster metadata, GroupSubscription groupSubscription) {
		throw new UnsupportedOperationException("a stand-in joins the group, it never leads its assignment");
	}

	@Override
	public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
		// the assignment's user data is Kafka Streams' own: nothing here reads it
	}

	@Override
	public List<RebalanceProtocol> supportedProtocols() {
		return List.of(RebalanceProtocol.EAGER, RebalanceProtocol.COOPERATIVE);
	}

}
