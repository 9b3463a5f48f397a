package io.valueguard.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.jspecify.annotations.Nullable;

/** {@link GroupTransactions} over Kafka's admin API. */
final class AdminGroupTransactions implements GroupTransactions {

	private final Admin admin;

	private final long timeoutMs;

	AdminGroupTransactions(Admin admin, long timeoutMs) {
		this.admin = admin;
		this.timeoutMs = timeoutMs;
	}

	@Override
	public @Nullable Set<String> memberProcesses(String group) throws Exception {
		ConsumerGroupDescription description = this.admin.describeConsumerGroups(List.of(group))
			.describedGroups()
			.get(group)
			.get(this.timeoutMs, TimeUnit.MILLISECONDS);
		Set<String> processes = new HashSet<>();
		for (MemberDescription member : description.members()) {
			String process = StreamsClientIds.processOfConsumer(group, member.clientId());
			if (process == null) {
				return null;
			}
			processes.add(process);
		}
		return processes;
	}

	@Override
	public List<OpenTransaction> open(String group) throws Exception {
		long now = System.currentTimeMillis();
		List<OpenTransaction> open = new ArrayList<>();
		described(this.admin, group, Set.of(TransactionState.ONGOING), this.timeoutMs)
			.forEach((id, description) -> open.add(new OpenTransaction(id,
					StreamsClientIds.processOfProducer(group, id), openMs(description, now),
					description.transactionTimeoutMs())));
		open.sort(Comparator.comparing(OpenTransaction::transactionalId));
		return open;
	}

	/**
	 * The transactions of the group's own producers (the transactional ids Kafka Streams gives the application's)
	 * that the broker lists in one of {@code states}, described, and still in one of them when described.
	 */
	static Map<String, TransactionDescription> described(Admin admin, String group, Set<TransactionState> states,
			long timeoutMs) throws Exception {
		List<String> ids = new ArrayList<>();
		for (TransactionListing listing : admin.listTransactions(new ListTransactionsOptions().filterStates(states))
			.all()
			.get(timeoutMs, TimeUnit.MILLISECONDS)) {
			// filtered here, not by the broker: brokers before Kafka 3.8 filter on neither id nor duration
			if (StreamsClientIds.processOfProducer(group, listing.transactionalId()) != null) {
				ids.add(listing.transactionalId());
			}
		}
		if (ids.isEmpty()) {
			return Map.of();
		}
		Map<String, TransactionDescription> described = new HashMap<>(
				admin.describeTransactions(ids).all().get(timeoutMs, TimeUnit.MILLISECONDS));
		described.values().removeIf((description) -> !states.contains(description.state()));
		return described;
	}

	/** How long the transaction has been open at {@code now} (epoch milliseconds); 0 when the broker does not say. */
	static long openMs(TransactionDescription description, long now) {
		return description.transactionStartTimeMs().isPresent()
				? now - description.transactionStartTimeMs().getAsLong() : 0;
	}

	@Override
	public void fence(Collection<String> transactionalIds) throws Exception {
		this.admin.fenceProducers(transactionalIds).all().get(this.timeoutMs, TimeUnit.MILLISECONDS);
	}

}
