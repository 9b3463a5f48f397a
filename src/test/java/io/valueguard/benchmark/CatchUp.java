package io.valueguard.benchmark;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/** Applications started together and timed until every group has caught up with its inputs. */
final class CatchUp {

	private final Admin admin;

	private final Map<String, Set<String>> inputs;

	private final int partitions;

	CatchUp(Admin admin, int partitions, Map<String, Set<String>> inputs) {
		this.partitions = partitions;
		this.admin = admin;
		this.inputs = inputs;
	}

	/** From when {@code running} first holds until every group has caught up. */
	long time(java.util.concurrent.Callable<Boolean> running, Process process) throws Exception {
		long deadline = System.nanoTime() + Duration.ofMinutes(20).toNanos();
		while (!running.call()) {
			if (System.nanoTime() > deadline || (process != null && !process.isAlive())) {
				throw new IllegalStateException("the application did not start");
			}
			Thread.sleep(20);
		}
		long started = System.nanoTime();
		long caughtUpAt = 0;
		while (System.nanoTime() < deadline) {
			Thread.sleep(100);
			if (caughtUp()) {
				if (caughtUpAt == 0) {
					caughtUpAt = System.nanoTime();
				}
				else if (System.nanoTime() - caughtUpAt > 500_000_000L) {
					return (caughtUpAt - started) / 1_000_000;
				}
			}
			else {
				caughtUpAt = 0;
			}
		}
		throw new IllegalStateException("did not catch up within 20 minutes");
	}

	/** Every group's committed offsets at its inputs' last stable offsets (at most a commit marker short). */
	private boolean caughtUp() throws Exception {
		for (Map.Entry<String, Set<String>> group : this.inputs.entrySet()) {
			Map<TopicPartition, OffsetAndMetadata> committed = this.admin
				.listConsumerGroupOffsets(group.getKey())
				.partitionsToOffsetAndMetadata()
				.get();
			Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
			for (String topic : group.getValue()) {
				for (int partition = 0; partition < this.partitions; partition++) {
					latest.put(new TopicPartition(topic, partition), OffsetSpec.latest());
				}
			}
			Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = this.admin
				.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
				.all()
				.get();
			for (Map.Entry<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> end : ends.entrySet()) {
				OffsetAndMetadata offset = committed.get(end.getKey());
				long position = (offset != null) ? offset.offset() : 0;
				// a transactional topic ends with a commit marker that no consumer position passes
				long slack = end.getKey().topic().startsWith("bench-") ? 1 : 0;
				if (end.getValue().offset() - position > slack) {
					return false;
				}
			}
		}
		return true;
	}

}
