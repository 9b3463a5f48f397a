package io.valueguard.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Properties;
import java.util.StringJoiner;
import java.util.TreeSet;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Component;
import org.springframework.util.FileSystemUtils;

/**
 * Which Kafka cluster, and which claims topic in it, a stage's local state was built from. Kafka Streams restores a
 * store from the offset its checkpoint names and checks only that the changelog reaches that far, so a state directory
 * filled from another cluster (a laptop's local broker, a cluster rebuilt or migrated under persistent volumes) or
 * from topics since deleted and created again would be restored on top of: its stores would keep entries this cluster
 * never had and miss the ones before that offset, and the stages would rule on them. So each stage's directory gets a
 * stamp beside it, naming the cluster id and the claims topic's id as {@link TopicProvisioner} found them at start-up,
 * and one naming the ids of the stage's changelog topics as {@link ChangelogTopics} found or created them; before the
 * stage starts, a directory whose stamps name another origin is deleted, and its stores restore from this cluster's
 * changelogs as a new instance's do. A directory without a stamp (from a build before stamps) is kept and stamped.
 */
@Component
public class LocalStateOrigin {

	private static final Log logger = LogFactory.getLog(LocalStateOrigin.class);

	static final String CLUSTER_ID = "cluster.id";

	static final String CLAIMS_TOPIC_ID = "claims.topic.id";

	private static final String ORIGIN_COMMENT = "The Kafka cluster and claims topic ValueGuard built the state beside "
			+ "this from";

	private static final String CHANGELOGS_COMMENT = "The changelog topics, by name and id, ValueGuard restored the "
			+ "state beside this from";

	/** The streams configuration that carries {@link #inputTopicIds()} to the stages' tasks (store/AppliedInput). */
	static final String INPUT_TOPIC_IDS = "valueguard.input-topic-ids";

	/** Kafka Streams' lock on an application's state directory, held while a client runs in it. */
	private static final String STREAMS_LOCK = ".lock";

	private final Properties origin;

	private final Map<String, String> inputTopicIds;

	@Autowired
	LocalStateOrigin(TopicProvisioner topics) {
		this(topics.clusterId(), topics.claimsTopicId(), topics.inputTopicIds());
	}

	LocalStateOrigin(String clusterId, String claimsTopicId) {
		this(clusterId, claimsTopicId, Map.of());
	}

	LocalStateOrigin(String clusterId, String claimsTopicId, Map<String, String> inputTopicIds) {
		this.origin = new Properties();
		this.origin.setProperty(CLUSTER_ID, clusterId);
		this.origin.setProperty(CLAIMS_TOPIC_ID, claimsTopicId);
		this.inputTopicIds = inputTopicIds;
	}

	/**
	 * The ids of the topics the stages read, for the stages' configuration ({@link #INPUT_TOPIC_IDS}): the marks of
	 * the input a task applied belong to one incarnation of a topic, and a topic created again starts without them.
	 */
	String inputTopicIds() {
		StringJoiner ids = new StringJoiner(",");
		this.inputTopicIds.forEach((topic, id) -> ids.add(topic + "=" + id));
		return ids.toString();
	}

	/**
	 * Makes {@code stateDir/applicationId} this origin's, the stage's changelog topics included: deletes it if its
	 * stamp names another cluster or claims topic, or another id for one of {@code changelogIds} (the topic was deleted
	 * and created again since the state was restored from it), then stamps it. Left as it is while another process
	 * runs in it (Kafka Streams then refuses to start there, and says why). A changelog the stamp does not name
	 * (a build before these stamps, a store added since) or whose id is not known now is not held against the state.
	 * The changelogs' ids have a stamp of their own, {@code <applicationId>.changelogs}: a build before them, rolled
	 * back to, compares the whole of its stamp and would take any other line for another cluster's state.
	 * @param changelogIds the ids of the stage's changelog topics, by name, as far as the cluster told them
	 * @return whether the directory was deleted
	 */
	boolean claim(Path stateDir, String applicationId, Map<String, String> changelogIds) {
		Path directory = stateDir.resolve(applicationId);
		Path stamp = stateDir.resolve(applicationId + ".origin");
		Path changelogStamp = stateDir.resolve(applicationId + ".changelogs");
		try {
			Properties stamped = read(stamp);
			Properties stampedChangelogs = read(changelogStamp);
			Properties changelogs = new Properties();
			changelogs.putAll(changelogIds);
			String otherOrigin = (stamped != null) ? otherOrigin(stamped) : null;
			if (otherOrigin == null && stampedChangelogs != null) {
				otherOrigin = changelogsCreatedAgain(stampedChangelogs, changelogs);
			}
			if (otherOrigin == null) {
				if (!this.origin.equals(stamped)) {
					write(stamp, this.origin, ORIGIN_COMMENT);
				}
				// what the stamp knows and the cluster did not tell this time stays in it
				Properties kept = new Properties();
				if (stampedChangelogs != null) {
					kept.putAll(stampedChangelogs);
				}
				kept.putAll(changelogs);
				if (!kept.equals(stampedChangelogs) && !(kept.isEmpty() && stampedChangelogs == null)) {
					write(changelogStamp, kept, CHANGELOGS_COMMENT);
				}
				return false;
			}
			boolean deleted = false;
			if (Files.isDirectory(directory)) {
				if (!unlocked(directory)) {
					return false;
				}
				logger.warn("The state in " + directory + " " + otherOrigin + ": deleting it, the stores restore "
						+ "from this cluster's changelogs");
				FileSystemUtils.deleteRecursively(directory);
				deleted = true;
			}
			write(stamp, this.origin, ORIGIN_COMMENT);
			write(changelogStamp, changelogs, CHANGELOGS_COMMENT);
			return deleted;
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not check where the state in " + directory + " comes from", ex);
		}
	}

	/** How the stamped cluster or claims topic differ from this one's, or null if they do not. */
	private @Nullable String otherOrigin(Properties stamped) {
		if (this.origin.equals(stamped)) {
			return null;
		}
		return "was built from Kafka cluster " + stamped.getProperty(CLUSTER_ID) + " (claims topic "
				+ stamped.getProperty(CLAIMS_TOPIC_ID) + "), this is cluster " + this.origin.getProperty(CLUSTER_ID)
				+ " (claims topic " + this.origin.getProperty(CLAIMS_TOPIC_ID) + ")";
	}

	/** Which of the stamped changelogs have another id now, or null if none has. */
	private static @Nullable String changelogsCreatedAgain(Properties stamped, Properties current) {
		StringJoiner createdAgain = new StringJoiner(", ");
		for (String topic : new TreeSet<>(current.stringPropertyNames())) {
			String before = stamped.getProperty(topic);
			if (before != null && !before.equals(current.getProperty(topic))) {
				createdAgain.add("'" + topic + "' (topic id " + before + ", now " + current.getProperty(topic) + ")");
			}
		}
		return (createdAgain.length() == 0) ? null
				: "was restored from changelog topics since deleted and created again: " + createdAgain;
	}

	private static @Nullable Properties read(Path stamp) throws IOException {
		if (!Files.isRegularFile(stamp)) {
			return null;
		}
		Properties stamped = new Properties();
		try (Reader reader = Files.newBufferedReader(stamp, StandardCharsets.UTF_8)) {
			stamped.load(reader);
		}
		return stamped;
	}

	private static void write(Path stamp, Properties content, String comment) throws IOException {
		Files.createDirectories(stamp.getParent());
		Path written = stamp.resolveSibling(stamp.getFileName() + ".tmp");
		try (Writer writer = Files.newBufferedWriter(written, StandardCharsets.UTF_8)) {
			content.store(writer, comment);
		}
		Files.move(written, stamp, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
	}

	/** Whether no process holds Kafka Streams' lock on the directory (checked by taking it for a moment). */
	private static boolean unlocked(Path directory) throws IOException {
		Path lock = directory.resolve(STREAMS_LOCK);
		if (!Files.exists(lock)) {
			return true;
		}
		try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.WRITE)) {
			FileLock taken = channel.tryLock();
			if (taken == null) {
				logger.warn("Not checking the state in " + directory + ": another process runs in it");
				return false;
			}
			taken.release();
			return true;
		}
		catch (OverlappingFileLockException ex) {
			logger.warn("Not checking the state in " + directory + ": a client in this process runs in it");
			return false;
		}
	}

}
