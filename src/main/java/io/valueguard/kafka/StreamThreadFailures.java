package io.valueguard.kafka;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.valueguard.config.ValueGuardProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.jspecify.annotations.Nullable;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.stereotype.Component;

/**
 * What happens when a stream thread dies. A recoverable error (a broker gone too long, a fenced producer, a task
 * that timed out) costs only that thread, which Kafka Streams replaces; exactly-once holds because the thread's open
 * transaction aborts and its tasks restart from the last commit. An {@link Error} (out of memory), or more deaths
 * within {@code valueguard.streams.thread-replacement-window} than {@code max-thread-replacements}, shuts the client
 * down instead, and {@link StreamsSupervisor} restarts it with a backoff. Kafka refusing the principal an operation
 * (an ACL missing) shuts the client down for good, with one ERROR naming the resource: no restart can fix it, so the
 * supervisor takes liveness DOWN at once instead of retrying. A thread fenced from its consumer group (another member
 * joined with its static {@code group.instance.id}) also costs the whole client: a replacement thread would join
 * under the next thread number, a new static id, and leave its partitions with the member that holds the old id,
 * unprocessed until the group rebalances without it, while a restarted client's threads rejoin under their own ids
 * and take their members back at once (docs/design.md).
 */
@Component
public class StreamThreadFailures {

	private static final Log logger = LogFactory.getLog(StreamThreadFailures.class);

	private final int maxReplacements;

	private final Duration window;

	private final Map<String, String> lastCause = new ConcurrentHashMap<>();

	/** Clients that Kafka refused an operation: what it said. */
	private final Map<String, String> refused = new ConcurrentHashMap<>();

	/** Clients shut down because a thread was fenced from its group, until they start again. */
	private final Set<String> fenced = ConcurrentHashMap.newKeySet();

	/** Clients that were handed a handler from here: proof that the policy is installed, for tests and diagnostics. */
	private final Set<String> installed = ConcurrentHashMap.newKeySet();

	StreamThreadFailures(ValueGuardProperties properties) {
		this.maxReplacements = properties.streams().maxThreadReplacements();
		this.window = properties.streams().threadReplacementWindow();
	}

	/** A handler for one client's threads, with its own count of replacements. */
	StreamsUncaughtExceptionHandler handlerFor(String applicationId) {
		this.installed.add(applicationId);
		// a client starting: whatever shut the last one down is its predecessor's story
		this.fenced.remove(applicationId);
		Deque<Long> replacements = new ArrayDeque<>();
		return (exception) -> {
			String cause = describe(exception);
			this.lastCause.put(applicationId, cause);
			AuthorizationException denied = causeOf(exception, AuthorizationException.class);
			if (denied != null) {
				String refusal = denied.getClass().getSimpleName() + ": " + denied.getMessage();
				this.refused.put(applicationId, refusal);
				logger.error("Kafka refused " + applicationId + " an operation it needs (" + refusal + "); shutting "
						+ "the client down, and liveness goes DOWN: grant the principal the ACLs that docs/security.md "
						+ "lists for this resource, then restart the instance");
				return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
			}
			if (causeOf(exception, FencedInstanceIdException.class) != null) {
				logger.warn("A stream thread of " + applicationId + " was fenced from its consumer group: another "
						+ "member joined with its static id (group.instance.id, from valueguard.instance-name). "
						+ "Restarting the client so that its threads rejoin under their own ids; if this repeats, two "
						+ "live instances share one name: " + cause);
				this.fenced.add(applicationId);
				return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
			}
			if (causeOf(exception, Error.class) != null) {
				logger.warn("A stream thread of " + applicationId + " died of a fatal error; shutting the client down "
						+ "to restart it: " + cause);
				return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
			}
			synchronized (replacements) {
				long now = System.nanoTime();
				while (!replacements.isEmpty() && now - replacements.peekFirst() > this.window.toNanos()) {
					replacements.removeFirst();
				}
				if (replacements.size() >= this.maxReplacements) {
					logger.warn("A stream thread of " + applicationId + " died " + (replacements.size() + 1)
							+ " times within " + this.window + "; shutting the client down to restart it: " + cause);
					replacements.clear();
					return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
				}
				replacements.addLast(now);
				logger.warn("A stream thread of " + applicationId + " died; replacing it (" + replacements.size()
						+ " of " + this.maxReplacements + " within " + this.window + "): " + cause);
			}
			return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
		};
	}

	/** Application ids of the clients that were handed this policy when they started. */
	public Set<String> installedFor() {
		return Set.copyOf(this.installed);
	}

	/** Application ids of the clients Kafka refused an operation. */
	Set<String> refused() {
		return Set.copyOf(this.refused.keySet());
	}

	/** What Kafka said when it refused the client an operation, or null when it never did. */
	@Nullable String refusal(String applicationId) {
		return this.refused.get(applicationId);
	}

	/** Whether the client was shut down because a thread was fenced from its group, and has not started since. */
	boolean fenced(String applicationId) {
		return this.fenced.contains(applicationId);
	}

	/** The first error of the given type in the exception's chain of causes, or null. */
	private static <T extends Throwable> @Nullable T causeOf(Throwable exception, Class<T> type) {
		for (Throwable cause = exception; cause != null; cause = cause.getCause()) {
			if (type.isInstance(cause)) {
				return type.cast(cause);
			}
			if (cause.getCause() == cause) {
				break;
			}
		}
		return null;
	}

	/** The last error that killed a thread of the client: for the supervisor's log line, tests and diagnostics. */
	public @Nullable String lastCause(String applicationId) {
		return this.lastCause.get(applicationId);
	}

	/** The outermost and the innermost error in one line: what Kafka Streams said, and why. */
	static String describe(Throwable exception) {
		Throwable root = NestedExceptionUtils.getMostSpecificCause(exception);
		String outer = exception.getClass().getSimpleName() + ": " + exception.getMessage();
		return (root == exception) ? outer
				: outer + " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
	}

}
