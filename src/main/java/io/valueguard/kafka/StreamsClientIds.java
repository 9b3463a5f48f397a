package io.valueguard.kafka;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * What Kafka Streams' own client ids say: each client of an application names itself after the application id and
 * the process (a UUID kept in the state directory, one per streams client): its stream threads' consumers
 * {@code <application.id>-<process>-StreamThread-<n>-consumer}, the transactional ids of their exactly-once producers
 * {@code <application.id>-<process>-<n>}. A {@code client.id} set by hand replaces the first, never the second.
 */
final class StreamsClientIds {

	private static final String PROCESS = "(\\p{XDigit}{8}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{4}-\\p{XDigit}{12})";

	private static final Pattern PRODUCER = Pattern.compile("-" + PROCESS + "-\\d+");

	private static final Pattern CONSUMER = Pattern.compile("-" + PROCESS + "-StreamThread-\\d+-consumer");

	private StreamsClientIds() {
	}

	/** The process whose producer of the application has this transactional id; null when it is not one. */
	static @Nullable String processOfProducer(String applicationId, String transactionalId) {
		return processOf(applicationId, transactionalId, PRODUCER);
	}

	/** The process whose stream thread's consumer has this client id; null when it is not one. */
	static @Nullable String processOfConsumer(String applicationId, String clientId) {
		return processOf(applicationId, clientId, CONSUMER);
	}

	private static @Nullable String processOf(String applicationId, String id, Pattern rest) {
		if (!id.startsWith(applicationId)) {
			return null;
		}
		Matcher matcher = rest.matcher(id.substring(applicationId.length()));
		return matcher.matches() ? matcher.group(1) : null;
	}

}
