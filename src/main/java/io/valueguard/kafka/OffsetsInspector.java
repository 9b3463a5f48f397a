package io.valueguard.kafka;

import java.time.Duration;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;

/** Asks the broker whether a group's committed offsets of some partitions are held back, and by what. */
@FunctionalInterface
interface OffsetsInspector {

	/**
	 * @param group the stage's group (its application id)
	 * @param assigned the input partitions of the tasks this instance was assigned
	 * @param openAtLeast how long a transaction must have been open to have held the offsets back through the stall
	 */
	HeldBackOffsets inspect(String group, Set<TopicPartition> assigned, Duration openAtLeast) throws Exception;

}
