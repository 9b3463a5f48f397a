package io.valueguard.kafka;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
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
		List<String> ids = new ArrayList<>();
		for (TransactionListing listing : this.admin
			.listTransactions(new ListTransactionsOptions().filterStates(Set.of(TransactionState.ONGOING)))
			.all()
			.get(this.timeoutMs, TimeUnit.MILLISECONDS)) {
			// filtered here, not by the broker: brokers before Kafka 3.8 filter on neither id nor duration
			if (StreamsClientIds.processOfProducer(group, listing.transactionalId()) != null) {
				ids.add(listing.transactionalId());
			}
		}
		if (ids.isEmpty()) {
			return List.of();
		}
		long now = System.currentTimeMillis();
		List<OpenTransaction> open = new ArrayList<>();
		Map<String, TransactionDescription> described = this.admin.describeTransactions(ids)
			.all()
			.get(this.timeoutMs, TimeUnit.MILLISECONDS);
		described.forEach((id, description) -> {
			if (description.state() == TransactionState.ONGOING) {
				long openMs = description.transactionStartTimeMs().isPresent()
						? now - description.transactionStartTimeMs().getAsLong() : 0;
				open.add(new OpenTransaction(id, StreamsClientIds.processOfProducer(group, id), openMs,
						description.transactionTimeoutMs()));
			}
		});
		open.sort(Comparator.comparing(OpenTransaction::transactionalId));
		return open;
	}

	@Override
	public void fence(Collection<String> transactionalIds) throws Exception {
		this.admin.fenceProducers(transactionalIds).all().get(this.timeoutMs, TimeUnit.MILLISECONDS);
	}

}
