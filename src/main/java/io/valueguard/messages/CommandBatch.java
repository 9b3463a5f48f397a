package io.valueguard.messages;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import io.valueguard.codec.BinaryCodec;
import io.valueguard.codec.RecordSerde;
import io.valueguard.config.ClaimPolicy;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.StreamPartitioner;
import org.jspecify.annotations.Nullable;

/**
 * Owner commands for the values of one owner-commands partition, in the order the key stage sent them. One record
 * carries many commands because Kafka's cost is per record, not per byte (docs/design.md, "Commands and verdicts
 * travel in batches").
 * @param partition the owner-commands partition every value of the batch maps to
 */
public record CommandBatch(int partition, List<Entry> entries) {

	/**
	 * One command about one value.
	 * @param value the value, or null in a record of the single-message format, whose record key is the value
	 */
	public record Entry(@Nullable String value, OwnerCommand command) {

	}

	/**
	 * The header of a batch that holds a command someone waits for ({@code PUT ?wait=}): a value stage whose ruling
	 * must travel back commits it as soon as its commit throttle allows, not at its next scheduled commit. A release
	 * before the header ignores it, and rules the batch as ever.
	 */
	public static final String WAITED_FOR = "valueguard.waiting";

	/**
	 * The header that names the rule of the key stage that sent the batch ({@link ClaimPolicy#name()}), by which the
	 * value stage rules its claims: while a rolling restart switches the policy, the two stages of one claim may run
	 * different rules, and a first-wins key stage waits for a grant that only the first-wins rule sends (docs/design.md,
	 * "Switching policy"). A batch without it, or with a name this version does not know, is ruled by the value
	 * stage's own policy.
	 */
	public static final String RULE = "valueguard.rule";

	/** Each rule's name as the header carries it, made once: every batch is written with one. */
	private static final Map<ClaimPolicy, byte[]> RULE_NAMES = new EnumMap<>(ClaimPolicy.class);

	static {
		for (ClaimPolicy rule : ClaimPolicy.values()) {
			RULE_NAMES.put(rule, rule.name().getBytes(StandardCharsets.US_ASCII));
		}
	}

	/** The headers of a batch: {@link #WAITED_FOR} if someone waits for one of its commands, and {@link #RULE}. */
	public static Headers headers(boolean waitedFor, ClaimPolicy rule) {
		RecordHeaders headers = new RecordHeaders();
		if (waitedFor) {
			headers.add(WAITED_FOR, new byte[0]);
		}
		headers.add(RULE, RULE_NAMES.get(rule));
		return headers;
	}

	public static boolean isWaitedFor(Headers headers) {
		return headers.lastHeader(WAITED_FOR) != null;
	}

	/** The rule the batch's key stage applies, or {@code otherwise} when the batch does not name one this knows. */
	public static ClaimPolicy ruleOf(Headers headers, ClaimPolicy otherwise) {
		Header rule = headers.lastHeader(RULE);
		if (rule == null || rule.value() == null) {
			return otherwise;
		}
		for (Map.Entry<ClaimPolicy, byte[]> known : RULE_NAMES.entrySet()) {
			if (Arrays.equals(known.getValue(), rule.value())) {
				return known.getKey();
			}
		}
		return otherwise;
	}

	/** An upper bound of an entry's encoded size, cheap enough to count every entry with. */
	public static int sizeOf(String value, OwnerCommand command) {
		return 3 * (value.length() + command.key().length()) + 32;
	}

	/**
	 * The owner-commands sink's partitioner: each batch to the partition it was made for. The key stage grouped the
	 * values with the partition count seen at start-up. A different count means partitions were added: values would
	 * now map away from their entries in the owners store, so that stops the stream instead.
	 */
	public static StreamPartitioner<String, CommandBatch> partitioner(int partitions) {
		return (topic, key, batch, numPartitions) -> {
			KeyPartitions.requireStartCount(topic, numPartitions, partitions,
					"values would map away from the state that arbitrates them");
			return Optional.of(Set.of(batch.partition()));
		};
	}

	/** Claims and releases only: the format every earlier release reads, so that a rolling upgrade keeps working. */
	private static final byte FORMAT = 2;

	/** With an erasure: the command type as a byte. */
	private static final byte TYPED = 3;

	/** The value an erasure's entry names: none, it is about every value of the partition. */
	public static final String NO_VALUE = "";

	byte[] encode() {
		// exact for ASCII: format, partition, count, then per entry two lengths, the type, timestamp and partition
		int expected = 9;
		boolean typed = false;
		for (Entry entry : this.entries) {
			expected += entry.value().length() + entry.command().key().length() + 21;
			typed |= entry.command().type() == OwnerCommand.Type.ERASE;
		}
		if (typed) {
			return BinaryCodec.encode(TYPED, expected, (out) -> out.int32(this.partition)
				.list(this.entries, (element, entry) -> entry.command().writeTyped(element.string(entry.value()))));
		}
		return BinaryCodec.encode(FORMAT, expected, (out) -> out.int32(this.partition)
			.list(this.entries, (element, entry) -> entry.command().write(element.string(entry.value()))));
	}

	static CommandBatch decode(byte[] bytes) {
		return BinaryCodec.decode(bytes, "owner commands", Map.of(OwnerCommand.FORMAT,
				(in) -> new CommandBatch(-1, List.of(new Entry(null, OwnerCommand.read(in)))), FORMAT,
				(in) -> new CommandBatch(in.int32(),
						in.list((element) -> new Entry(element.string(), OwnerCommand.read(element)))),
				TYPED, (in) -> new CommandBatch(in.int32(),
						in.list((element) -> new Entry(element.string(), OwnerCommand.readTyped(element))))));
	}

	/** Serde of the owner-commands topic: batches, and commands in the single-message format. */
	public static final class Serde extends RecordSerde<CommandBatch> {

		public Serde() {
			super(CommandBatch::encode, CommandBatch::decode);
		}

	}

}
