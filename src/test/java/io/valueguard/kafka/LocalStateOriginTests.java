package io.valueguard.kafka;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.TreeMap;

import io.valueguard.store.AppliedInput;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class LocalStateOriginTests {

	private static final String STAGE = "valueguard-keys";

	private static final String BINDINGS = STAGE + "-bindings-changelog";

	private static final String MARKS = STAGE + "-bindings-applied-offsets-changelog";

	@TempDir
	Path state;

	private final LocalStateOrigin here = new LocalStateOrigin("cluster-b", "claims-1");

	@Test
	void shouldHandTheInputTopicsIdsToTheStagesTasksUnderTheNameTheyReadThemBy() {
		LocalStateOrigin origin = new LocalStateOrigin("cluster-b", "claims-1",
				new TreeMap<>(Map.of("valueguard.claims", "claims-1", "valueguard-owner-commands", "commands-1")));

		assertThat(origin.inputTopicIds()).isEqualTo("valueguard-owner-commands=commands-1,valueguard.claims=claims-1");
		assertThat(LocalStateOrigin.INPUT_TOPIC_IDS).isEqualTo(AppliedInput.INPUT_TOPIC_IDS);
	}

	@Test
	void shouldStampANewDirectory() throws Exception {
		assertThat(this.here.claim(this.state, STAGE, Map.of())).isFalse();

		assertThat(Files.readString(stamp())).contains("cluster.id=cluster-b").contains("claims.topic.id=claims-1");
		assertThat(changelogStamp()).as("no changelog ids told").doesNotExist();
	}

	@Test
	void shouldKeepStateFromThisClusterAndClaimsTopic() throws Exception {
		this.here.claim(this.state, STAGE, Map.of());
		Path checkpoint = store();

		assertThat(this.here.claim(this.state, STAGE, Map.of())).isFalse();

		assertThat(checkpoint).exists();
	}

	@Test
	void shouldKeepAndStampStateWrittenBeforeStamps() throws Exception {
		Path checkpoint = store();

		assertThat(this.here.claim(this.state, STAGE, Map.of())).isFalse();

		assertThat(checkpoint).exists();
		assertThat(Files.readString(stamp())).contains("cluster.id=cluster-b");
	}

	@Test
	void shouldDeleteStateBuiltFromAnotherCluster() throws Exception {
		new LocalStateOrigin("cluster-a", "claims-1").claim(this.state, STAGE, Map.of());
		Path checkpoint = store();

		assertThat(this.here.claim(this.state, STAGE, Map.of())).isTrue();

		assertThat(checkpoint).doesNotExist();
		assertThat(this.state.resolve(STAGE)).doesNotExist();
		assertThat(Files.readString(stamp())).contains("cluster.id=cluster-b");
		// and from then on it is this cluster's
		store();
		assertThat(this.here.claim(this.state, STAGE, Map.of())).isFalse();
	}

	@Test
	void shouldDeleteStateBuiltFromAClaimsTopicSinceCreatedAgain() throws Exception {
		new LocalStateOrigin("cluster-b", "claims-0").claim(this.state, STAGE, Map.of());
		Path checkpoint = store();

		assertThat(this.here.claim(this.state, STAGE, Map.of())).isTrue();

		assertThat(checkpoint).doesNotExist();
	}

	@Test
	void shouldStampTheIdsOfTheStagesChangelogsApartFromTheOrigin() throws Exception {
		this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-1"));

		// a build before the changelogs' stamp compares the whole of its own, and would delete the state on rollback
		assertThat(Files.readString(stamp())).doesNotContain(BINDINGS);

		assertThat(Files.readString(changelogStamp())).contains(BINDINGS + "=bindings-1");
	}

	@Test
	void shouldDeleteStateRestoredFromAChangelogSinceCreatedAgain() throws Exception {
		this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-1", MARKS, "marks-1"));
		Path checkpoint = store();

		assertThat(this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-2", MARKS, "marks-1"))).isTrue();

		assertThat(checkpoint).doesNotExist();
		assertThat(Files.readString(changelogStamp())).contains(BINDINGS + "=bindings-2");
		store();
		assertThat(this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-2", MARKS, "marks-1"))).isFalse();
	}

	@Test
	void shouldKeepStateWhoseStampNamesNoChangelogsAndStampThem() throws Exception {
		this.here.claim(this.state, STAGE, Map.of());
		Path checkpoint = store();

		assertThat(this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-1"))).isFalse();

		assertThat(checkpoint).exists();
		assertThat(Files.readString(changelogStamp())).contains(BINDINGS + "=bindings-1");
	}

	@Test
	void shouldKeepTheStampedIdOfAChangelogTheClusterDidNotTellThisTime() throws Exception {
		this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-1", MARKS, "marks-1"));
		Path checkpoint = store();

		// the description failed, or another instance created the topic in the same moment
		assertThat(this.here.claim(this.state, STAGE, Map.of(MARKS, "marks-1"))).isFalse();

		assertThat(checkpoint).exists();
		assertThat(this.here.claim(this.state, STAGE, Map.of(BINDINGS, "bindings-2"))).as("still compared").isTrue();
	}

	@Test
	void shouldOnlyDeleteTheStagesOwnDirectory() throws Exception {
		LocalStateOrigin before = new LocalStateOrigin("cluster-a", "claims-1");
		before.claim(this.state, STAGE, Map.of());
		before.claim(this.state, "valueguard-values", Map.of());
		store();
		Path other = Files.createDirectories(this.state.resolve("valueguard-values").resolve("0_0"));

		this.here.claim(this.state, STAGE, Map.of());

		assertThat(other).exists();
	}

	@Test
	void shouldLeaveStateAloneWhileAClientRunsInIt() throws Exception {
		new LocalStateOrigin("cluster-a", "claims-1").claim(this.state, STAGE, Map.of());
		Path checkpoint = store();
		try (FileChannel channel = FileChannel.open(this.state.resolve(STAGE).resolve(".lock"),
				StandardOpenOption.CREATE, StandardOpenOption.WRITE); FileLock held = channel.lock()) {

			assertThat(this.here.claim(this.state, STAGE, Map.of())).isFalse();

			assertThat(checkpoint).exists();
			assertThat(Files.readString(stamp())).contains("cluster.id=cluster-a");
		}
	}

	private Path stamp() {
		return this.state.resolve(STAGE + ".origin");
	}

	private Path changelogStamp() {
		return this.state.resolve(STAGE + ".changelogs");
	}

	/** A task's directory with a checkpoint in it, as Kafka Streams leaves one. */
	private Path store() throws Exception {
		Path task = Files.createDirectories(this.state.resolve(STAGE).resolve("0_0"));
		return Files.writeString(task.resolve(".checkpoint"), "0\n1\nchangelog 0 7\n");
	}

}
