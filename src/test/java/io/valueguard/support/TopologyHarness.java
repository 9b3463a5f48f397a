package io.valueguard.support;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;

import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.EvictionEventSerde;
import io.valueguard.claims.KeyClaim;
import io.valueguard.claims.KeyStageEvents;
import io.valueguard.claims.ClaimHeaders;
import io.valueguard.claims.KeyStageTopology;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.RulingBell;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.owners.Erasure;
import io.valueguard.owners.Owner;
import io.valueguard.owners.ValueStageTopology;
import io.valueguard.store.ActivePartitions;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.KStream;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.test.TestRecord;
import org.jspecify.annotations.Nullable;
import org.springframework.util.FileSystemUtils;

/**
 * Both stages in one {@link TopologyTestDriver}, built by calling the function beans on a plain StreamsBuilder: no
 * Spring, no broker. Internal topics loop back as the driver processes them, so one piped claim runs through the key
 * stage, the value stage and back.
 */
public final class TopologyHarness implements AutoCloseable {

	/** The driver has one partition per topic. */
	private static final int COMMAND_PARTITIONS = 1;

	/** The driver's one partition of the claims topic, the partition of every record piped in. */
	public static final int CLAIMS_PARTITION = 0;

	private final ValueGuardProperties properties;

	private final TopologyTestDriver driver;

	private final Path stateDirectory;

	private final TestInputTopic<byte[], byte[]> claims;

	private final TestInputTopic<String, Verdict> feedback;

	private final TestInputTopic<String, OwnerCommand> commands;

	private final TestInputTopic<String, CommandBatch> commandBatchInput;

	private final TestOutputTopic<String, String> bindings;

	private final TestOutputTopic<String, EvictionEvent> evictions;

	private final TestOutputTopic<byte[], byte[]> dlq;

	private final TestOutputTopic<byte[], byte[]> rerouted;

	private final TestOutputTopic<String, CommandBatch> commandBatches;

	private final TestOutputTopic<String, VerdictBatch> verdictBatches;

	private final Topology topology;

	/** The bell both stages ring; a test listens to it. */
	private final RulingBell bell = new RulingBell();

	private final ActivePartitions active = new ActivePartitions();

	private boolean closed;

	public TopologyHarness() {
		this(TestProperties.defaults(), KeyStageEvents.NONE);
	}

	public TopologyHarness(ValueGuardProperties properties, KeyStageEvents events) {
		this(properties, events, 1);
	}

	/**
	 * @param claimsPartitions the partition count the key stage counts a key's partition over: with more than one, a
	 * claim whose key belongs on another partition than the driver's {@link #CLAIMS_PARTITION} is rerouted, and comes
	 * back to that same partition from the rerouted-claims topic
	 */
	@SuppressWarnings("unchecked")
	public TopologyHarness(ValueGuardProperties properties, KeyStageEvents events, int claimsPartitions) {
		this.properties = properties;
		StreamsBuilder builder = new StreamsBuilder();
		// the function beans themselves, with their outputs written where the binding configuration sends them
		KStream<?, ?>[] keyOutputs = new KeyStageTopology(properties, events, this.bell, this.active,
				claimsPartitions, COMMAND_PARTITIONS)
			.apply(builder.stream(properties.topics().claims(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())))
			.apply(builder.stream(properties.evictionFeedbackTopic(),
					Consumed.with(Serdes.String(), new VerdictBatch.Serde())))
			.apply(builder.stream(properties.reroutedClaimsTopic(),
					Consumed.with(Serdes.ByteArray(), Serdes.ByteArray())));
		((KStream<String, String>) keyOutputs[KeyStageTopology.BINDINGS]).to(properties.topics().bindings(),
				Produced.with(Serdes.String(), Serdes.String()));
		((KStream<String, EvictionEvent>) keyOutputs[KeyStageTopology.EVICTIONS]).to(properties.topics().evictions(),
				Produced.with(Serdes.String(), new EvictionEventSerde()));
		((KStream<String, CommandBatch>) keyOutputs[KeyStageTopology.OWNER_COMMANDS]).to(
				properties.ownerCommandsTopic(), Produced.with(Serdes.String(), new CommandBatch.Serde())
					.withStreamPartitioner(CommandBatch.partitioner(COMMAND_PARTITIONS)));
		((KStream<byte[], byte[]>) keyOutputs[KeyStageTopology.DLQ]).to(properties.topics().dlq(),
				Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));
		// the driver's one partition: a rerouted claim comes back where it was read
		((KStream<byte[], byte[]>) keyOutputs[KeyStageTopology.REROUTED]).to(properties.reroutedClaimsTopic(),
				Produced.with(Serdes.ByteArray(), Serdes.ByteArray())
					.withStreamPartitioner((topic, key, value, partitions) -> Optional.of(Set.of(CLAIMS_PARTITION))));
		new ValueStageTopology(properties, io.valueguard.owners.ValueStageEvents.NONE, this.bell, this.active)
			.apply(builder.stream(properties.ownerCommandsTopic(),
					Consumed.with(Serdes.String(), new CommandBatch.Serde())))
			.to(properties.evictionFeedbackTopic(), Produced.with(Serdes.String(), new VerdictBatch.Serde())
				.withStreamPartitioner(VerdictBatch.PARTITIONER));
		this.topology = builder.build();
		Properties config = new Properties();
		config.put(StreamsConfig.APPLICATION_ID_CONFIG, "valueguard-test");
		config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
		// each driver its own state directory, so that tests may run two at once
		this.stateDirectory = temporaryDirectory();
		config.put(StreamsConfig.STATE_DIR_CONFIG, this.stateDirectory.toString());
		this.driver = new TopologyTestDriver(this.topology, config, Instant.ofEpochMilli(1_000_000));
		this.claims = this.driver.createInputTopic(properties.topics().claims(), new ByteArraySerializer(),
				new ByteArraySerializer());
		this.feedback = this.driver.createInputTopic(properties.evictionFeedbackTopic(), new StringSerializer(),
				new Verdict.Serde().serializer());
		this.commands = this.driver.createInputTopic(properties.ownerCommandsTopic(), new StringSerializer(),
				new OwnerCommand.Serde().serializer());
		this.commandBatchInput = this.driver.createInputTopic(properties.ownerCommandsTopic(), new StringSerializer(),
				new CommandBatch.Serde().serializer());
		this.bindings = this.driver.createOutputTopic(properties.topics().bindings(), new StringDeserializer(),
				new StringDeserializer());
		this.evictions = this.driver.createOutputTopic(properties.topics().evictions(), new StringDeserializer(),
				new EvictionEventSerde().deserializer());
		this.dlq = this.driver.createOutputTopic(properties.topics().dlq(), new ByteArrayDeserializer(),
				new ByteArrayDeserializer());
		this.rerouted = this.driver.createOutputTopic(properties.reroutedClaimsTopic(), new ByteArrayDeserializer(),
				new ByteArrayDeserializer());
		this.commandBatches = this.driver.createOutputTopic(properties.ownerCommandsTopic(), new StringDeserializer(),
				new CommandBatch.Serde().deserializer());
		this.verdictBatches = this.driver.createOutputTopic(properties.evictionFeedbackTopic(),
				new StringDeserializer(), new VerdictBatch.Serde().deserializer());
	}

	/** The bell both stages ring when they applied what a synchronous write may wait for. */
	public RulingBell bell() {
		return this.bell;
	}

	/** What the stages' tasks said of the partitions they process. */
	public ActivePartitions activePartitions() {
		return this.active;
	}

	public Topology topology() {
		return this.topology;
	}

	public TopologyHarness claim(String key, String value, long timestamp) {
		return raw(utf8(key), utf8(value), timestamp);
	}

	public TopologyHarness tombstone(String key, long timestamp) {
		return raw(utf8(key), null, timestamp);
	}

	/** An erasure request: a tombstone with the erase header. */
	public TopologyHarness erase(String key, long timestamp) {
		return claims(key, null, timestamp, true);
	}

	/** An erasure someone waits for, as {@code DELETE ?erase=true&wait=} sends it: with the waiting header too. */
	public TopologyHarness waitedForErasure(String key, long timestamp) {
		return record(key, null, timestamp, ClaimHeaders.ERASE, "true", ClaimHeaders.WAITING, "true");
	}

	/** A claims record with the given headers, each a name and its UTF-8 value. */
	public TopologyHarness record(String key, @Nullable String value, long timestamp, String... headerPairs) {
		RecordHeaders headers = new RecordHeaders();
		for (int i = 0; i < headerPairs.length; i += 2) {
			headers.add(headerPairs[i], utf8(headerPairs[i + 1]));
		}
		this.claims.pipeInput(new TestRecord<>(utf8(key), (value != null) ? utf8(value) : null, headers, timestamp));
		return this;
	}

	/** A release of {@code key} only if its latest claim is of {@code value}, as {@code DELETE ?value=} sends it. */
	public TopologyHarness releaseIf(String key, String value, long timestamp) {
		return record(key, null, timestamp, ClaimHeaders.IF_VALUE, value);
	}

	/** A claim of {@code value} only if the key's latest claim is of {@code from}, as {@code PUT ?from=} sends it. */
	public TopologyHarness claimIf(String key, String value, String from, long timestamp) {
		return record(key, value, timestamp, ClaimHeaders.IF_VALUE, from);
	}

	/** A record with the erase header, a claim or a tombstone as {@code value} says. */
	public TopologyHarness claims(String key, @Nullable String value, long timestamp, boolean eraseHeader) {
		RecordHeaders headers = new RecordHeaders();
		if (eraseHeader) {
			headers.add(ClaimHeaders.ERASE, utf8("true"));
		}
		this.claims.pipeInput(new TestRecord<>(utf8(key), (value != null) ? utf8(value) : null, headers, timestamp));
		return this;
	}

	/** A claim someone waits for, as {@code PUT ?wait=} sends it: with the waiting header. */
	public TopologyHarness waitedFor(String key, String value, long timestamp) {
		RecordHeaders headers = new RecordHeaders();
		headers.add(ClaimHeaders.WAITING, utf8("true"));
		this.claims.pipeInput(new TestRecord<>(utf8(key), utf8(value), headers, timestamp));
		return this;
	}

	public TopologyHarness raw(byte[] key, byte[] value, long timestamp) {
		this.claims.pipeInput(key, value, timestamp);
		return this;
	}

	/** The same, with headers. */
	public TopologyHarness raw(byte[] key, byte @Nullable [] value, long timestamp, Headers headers) {
		this.claims.pipeInput(new TestRecord<>(key, value, headers, timestamp));
		return this;
	}

	/** Delivers a verdict directly, as a delayed message from the value stage would arrive (as a single record). */
	public TopologyHarness verdict(String key, Verdict verdict) {
		this.feedback.pipeInput(key, verdict);
		return this;
	}

	/**
	 * Writes one command straight to the owner-commands topic, as a release before batching did, or as a foreign
	 * producer would.
	 */
	public TopologyHarness command(@Nullable String value, @Nullable OwnerCommand command) {
		this.commands.pipeInput(value, command);
		return this;
	}

	/** The same, at a record timestamp: the time a key stage writes a command with is its claim's. */
	public TopologyHarness command(String value, OwnerCommand command, long timestamp) {
		this.commands.pipeInput(value, command, timestamp);
		return this;
	}

	/** Writes one batch of commands to the owner-commands topic, as the key stage's outbox does at a commit. */
	public TopologyHarness commands(CommandBatch batch) {
		this.commandBatchInput.pipeInput(null, batch);
		return this;
	}

	/** The same, from a key stage that runs {@code rule}, as the batch's header says. */
	public TopologyHarness commands(CommandBatch batch, ClaimPolicy rule, long timestamp) {
		this.commandBatchInput.pipeInput(new TestRecord<>(null, batch, CommandBatch.headers(false, rule),
				Instant.ofEpochMilli(timestamp)));
		return this;
	}

	/** Writes straight to the eviction-feedback topic, as only a foreign producer would: any key, any value. */
	public TopologyHarness foreignVerdict(@Nullable String key, @Nullable Verdict verdict) {
		this.feedback.pipeInput(key, verdict);
		return this;
	}

	public TopologyHarness advanceWallClock(long millis) {
		this.driver.advanceWallClockTime(java.time.Duration.ofMillis(millis));
		return this;
	}

	/** Bindings records emitted since the last call, in order. */
	public List<TestRecord<String, String>> bindingRecords() {
		return this.bindings.readRecordsToList();
	}

	public List<EvictionEvent> evictionEvents() {
		return this.evictions.readValuesToList();
	}

	/** Owner-command records the key stage wrote since the last call (the driver loops them back too). */
	public List<TestRecord<String, CommandBatch>> commandRecords() {
		return this.commandBatches.readRecordsToList();
	}

	/** Verdict records the value stage wrote since the last call (the driver loops them back too). */
	public List<TestRecord<String, VerdictBatch>> verdictRecords() {
		return this.verdictBatches.readRecordsToList();
	}

	public List<TestRecord<byte[], byte[]>> dlqRecords() {
		return this.dlq.readRecordsToList();
	}

	/** Claims records the key stage sent to the rerouted-claims topic since the last call. */
	public List<TestRecord<byte[], byte[]>> reroutedRecords() {
		return this.rerouted.readRecordsToList();
	}

	/** The bindings store read as key to bound value. */
	public Map<String, String> boundValues() {
		Map<String, String> bound = new HashMap<>();
		KeyValueStore<String, KeyClaim> store = this.driver.getKeyValueStore("bindings");
		try (var all = store.all()) {
			all.forEachRemaining((entry) -> {
				if (entry.value.boundValue() != null) {
					bound.put(entry.key, entry.value.boundValue());
				}
			});
		}
		return bound;
	}

	public KeyClaim keyClaim(String key) {
		KeyValueStore<String, KeyClaim> store = this.driver.getKeyValueStore("bindings");
		return store.get(key);
	}

	/**
	 * The keys of the records written to a store's changelog since the last call, in order, each with whether it was
	 * a tombstone ({@code true}) or an entry.
	 */
	public List<Map.Entry<String, Boolean>> changelog(String store) {
		TestOutputTopic<String, byte[]> changelog = this.driver.createOutputTopic("valueguard-test-" + store
				+ "-changelog", new StringDeserializer(), new ByteArrayDeserializer());
		return changelog.readRecordsToList()
			.stream()
			.map((record) -> Map.entry(record.key(), record.value() == null))
			.toList();
	}

	/**
	 * Every record written to a store's changelog since the last call, as raw bytes: what the changelog topic holds
	 * until compaction.
	 */
	public List<TestRecord<byte[], byte[]>> changelogRecords(String store) {
		return this.driver.createOutputTopic("valueguard-test-" + store + "-changelog", new ByteArrayDeserializer(),
				new ByteArrayDeserializer()).readRecordsToList();
	}

	/** Every entry of a store, key and value as the store's serdes write them. */
	public List<Map.Entry<byte[], byte[]>> storeEntries(String name) {
		List<Map.Entry<byte[], byte[]>> entries = new java.util.ArrayList<>();
		KeyValueStore<String, Object> store = this.driver.getKeyValueStore(name);
		try (var all = store.all()) {
			all.forEachRemaining((entry) -> entries.add(Map.entry(utf8(entry.key), serialize(entry.value))));
		}
		return entries;
	}

	private static byte[] serialize(Object value) {
		if (value instanceof KeyClaim claim) {
			return new KeyClaim.Serde().serializer().serialize("", claim);
		}
		if (value instanceof Owner owner) {
			return new Owner.Serde().serializer().serialize("", owner);
		}
		if (value instanceof Erasure erasure) {
			return new Erasure.Serde().serializer().serialize("", erasure);
		}
		throw new IllegalArgumentException("No serde for " + value);
	}

	public Owner owner(String value) {
		KeyValueStore<String, Owner> store = this.driver.getKeyValueStore("owners");
		return store.get(value);
	}

	/** The owners store read as value to holding key. */
	public Map<String, String> heldValues() {
		Map<String, String> held = new HashMap<>();
		KeyValueStore<String, Owner> store = this.driver.getKeyValueStore("owners");
		try (var all = store.all()) {
			all.forEachRemaining((entry) -> {
				if (entry.value.holds()) {
					held.put(entry.key, entry.value.key());
				}
			});
		}
		return held;
	}

	private static Path temporaryDirectory() {
		try {
			return Files.createTempDirectory("valueguard-topology");
		}
		catch (java.io.IOException ex) {
			throw new java.io.UncheckedIOException(ex);
		}
	}

	public static byte[] utf8(String text) {
		return text.getBytes(StandardCharsets.UTF_8);
	}

	/** Closes the driver once: a test that closes it to see its tasks close leaves the rest to its own cleanup. */
	@Override
	public void close() {
		if (this.closed) {
			return;
		}
		this.closed = true;
		try {
			this.driver.close();
		}
		finally {
			// the driver deletes its tasks' directories, not the one it was given
			FileSystemUtils.deleteRecursively(this.stateDirectory.toFile());
		}
	}

}
