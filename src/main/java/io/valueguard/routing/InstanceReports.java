package io.valueguard.routing;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import io.valueguard.kafka.StoreLags;
import io.valueguard.kafka.StreamsClients;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.state.HostInfo;

import org.springframework.kafka.config.StreamsBuilderFactoryBean;
import org.springframework.stereotype.Component;

/** {@code GET /api/instances}: every instance's own report, gathered in parallel. */
@Component
public class InstanceReports {

	private final StreamsClients clients;

	private final StoreLags lags;

	private final RemoteInstances remote;

	InstanceReports(StreamsClients clients, StoreLags lags, RemoteInstances remote) {
		this.clients = clients;
		this.lags = lags;
		this.remote = remote;
	}

	public List<InstanceReport> all() {
		Set<HostInfo> hosts = new LinkedHashSet<>();
		hosts.add(this.clients.self());
		for (StreamsBuilderFactoryBean factory : this.clients.all()) {
			KafkaStreams streams = factory.getKafkaStreams();
			if (streams != null && streams.state().isRunningOrRebalancing()) {
				try {
					for (StreamsMetadata metadata : streams.metadataForAllStreamsClients()) {
						hosts.add(metadata.hostInfo());
					}
				}
				catch (IllegalStateException ex) {
					// the client stopped running since the check: report the instances the other client knows
				}
			}
		}
		List<CompletableFuture<InstanceReport>> reports = new ArrayList<>();
		for (HostInfo host : hosts) {
			reports.add(host.equals(this.clients.self()) ? CompletableFuture.completedFuture(local())
					: CompletableFuture.supplyAsync(() -> fetch(host), this.remote.fanOut()));
		}
		return reports.stream()
			.map(CompletableFuture::join)
			.sorted(Comparator.comparing(InstanceReport::host))
			.toList();
	}

	private InstanceReport fetch(HostInfo host) {
		try {
			return this.remote.report(host);
		}
		catch (RemoteInstances.UnavailableException ex) {
			return new InstanceReport(Hosts.name(host), false, ex.getMessage(), List.of(), List.of());
		}
	}

	/** This instance, as {@code host:port}. */
	public String self() {
		return Hosts.name(this.clients.self());
	}

	InstanceReport local() {
		List<InstanceReport.Client> streams = new ArrayList<>();
		for (StreamsBuilderFactoryBean factory : this.clients.all()) {
			KafkaStreams client = factory.getKafkaStreams();
			String applicationId = StreamsClients.applicationIdOf(factory);
			streams.add(new InstanceReport.Client(applicationId, (client != null) ? client.state().name() : "CREATED"));
		}
		streams.sort(Comparator.comparing(InstanceReport.Client::applicationId));
		List<InstanceReport.StorePartition> stores = this.lags.all()
			.stream()
			.map((lag) -> new InstanceReport.StorePartition(lag.store(), lag.partition(),
					lag.active() ? "active" : "standby", lag.offsetLag(), lag.currentOffset(), lag.endOffset()))
			.sorted(Comparator.comparing(InstanceReport.StorePartition::store)
				.thenComparing(InstanceReport.StorePartition::partition))
			.toList();
		return new InstanceReport(self(), true, null, streams, stores);
	}

}
