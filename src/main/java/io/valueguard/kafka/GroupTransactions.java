package io.valueguard.kafka;

import java.util.Collection;
import java.util.List;
import java.util.Set;

import org.jspecify.annotations.Nullable;

/** What fencing the producers of departed instances asks of the broker about one stage's group. */
interface GroupTransactions {

	/**
	 * The processes that have a stream thread in the group now (its members' client ids name them); null when a
	 * member's client id does not say whose it is ({@code client.id} set by hand), so that no process can be called
	 * departed.
	 */
	@Nullable Set<String> memberProcesses(String group) throws Exception;

	/** The open transactions of the group's exactly-once producers, as Kafka Streams names their transactional ids. */
	List<OpenTransaction> open(String group) throws Exception;

	/** Bumps the producers' epochs, which aborts their open transactions and fences them for good. */
	void fence(Collection<String> transactionalIds) throws Exception;

	/**
	 * @param transactionalId the producer's transactional id
	 * @param process the process it belongs to
	 * @param openMs how long its transaction has been open
	 * @param timeoutMs its transaction timeout
	 */
	record OpenTransaction(String transactionalId, String process, long openMs, long timeoutMs) {

	}

}
