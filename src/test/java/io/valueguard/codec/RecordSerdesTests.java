package io.valueguard.codec;

import java.util.HexFormat;
import java.util.List;

import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.EvictionEventSerde;
import io.valueguard.claims.KeyClaim;
import io.valueguard.messages.CommandBatch;
import io.valueguard.messages.Verdict;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.VerdictBatch;
import io.valueguard.owners.Erasure;
import io.valueguard.owners.Owner;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serde;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

class RecordSerdesTests {

	@Test
	void shouldRoundTripEveryRecordOnTopicsAndInStores() {
		assertRoundTrip(new OwnerCommand.Serde(), OwnerCommand.claim("k\uD83D\uDE00", 42, 3));
		assertRoundTrip(new OwnerCommand.Serde(), OwnerCommand.release("k", Long.MIN_VALUE, 0));
		assertRoundTrip(new Owner.Serde(), new Owner("k", 7, 5, true));
		assertRoundTrip(new KeyClaim.Serde(), new KeyClaim(null, 9, false));
		assertRoundTrip(new KeyClaim.Serde(), new KeyClaim("\u4E2D", 9, true));
		// longer than the writer's first buffer
		assertRoundTrip(new KeyClaim.Serde(), new KeyClaim("x".repeat(10_000), 9, true));
		assertRoundTrip(new KeyClaim.Serde(), new KeyClaim("pending", 9, false, true));
		assertRoundTrip(new Verdict.Serde(), new Verdict("v", 1, "w", 2, Verdict.Reason.LATE, 4));
		assertRoundTrip(new EvictionEventSerde(),
				new EvictionEvent("a", "v", "b", 1, 2, 3, Verdict.Reason.SUPERSEDED));
		assertRoundTrip(new CommandBatch.Serde(),
				new CommandBatch(3, List.of(new CommandBatch.Entry("v\u00e4", OwnerCommand.claim("k", 42, 1)),
						new CommandBatch.Entry("w", OwnerCommand.release("k\uD83D\uDE00", Long.MIN_VALUE, 0)))));
		assertRoundTrip(new VerdictBatch.Serde(), new VerdictBatch(4,
				List.of(new VerdictBatch.Entry("k", new Verdict("v", 1, "w", 2, Verdict.Reason.LATE, 4)))));
		assertRoundTrip(new CommandBatch.Serde(), new CommandBatch(0, List.of()));
		// erasure: a batch with an erase command, the key's entry while erasing, the report, the task's erasure
		assertRoundTrip(new CommandBatch.Serde(),
				new CommandBatch(2, List.of(new CommandBatch.Entry("w", OwnerCommand.release("k", 5, 1)),
						new CommandBatch.Entry(CommandBatch.NO_VALUE, OwnerCommand.erase("k", 6, 1)))));
		assertRoundTrip(new KeyClaim.Serde(), new KeyClaim(null, 6, false, false, 12));
		assertRoundTrip(new Verdict.Serde(), Verdict.erased(6, 1));
		assertRoundTrip(new Erasure.Serde(), new Erasure(6, 1));
	}

	/** What a release before batching wrote, one command or verdict per record, reads as a batch of one. */
	@Test
	void shouldReadSingleCommandsAndVerdictsAsBatchesOfOne() {
		OwnerCommand command = OwnerCommand.claim("k", 42, 3);
		byte[] single = new OwnerCommand.Serde().serializer().serialize("t", command);
		assertThat(new CommandBatch.Serde().deserializer().deserialize("t", single))
			.isEqualTo(new CommandBatch(-1, List.of(new CommandBatch.Entry(null, command))));
		Verdict verdict = new Verdict("v", 7L, "w", 9L, Verdict.Reason.LATE, 2);
		byte[] bytes = new Verdict.Serde().serializer().serialize("t", verdict);
		assertThat(new VerdictBatch.Serde().deserializer().deserialize("t", bytes))
			.isEqualTo(new VerdictBatch(-1, List.of(new VerdictBatch.Entry(null, verdict))));
	}

	/**
	 * The bytes on internal topics and in changelogs, as release 1 wrote them (big-endian, length-prefixed UTF-8): a
	 * new release must read an old one's changelogs, so the layout never changes within a format byte.
	 */
	@Test
	void shouldKeepTheBinaryLayoutOfEveryFormat() {
		assertBytes(new OwnerCommand.Serde(), OwnerCommand.release("k\u00e9y", 1700000000123L, 5),
				"0100000000046bc3a9790000018bcfe5687b00000005");
		assertBytes(new KeyClaim.Serde(), new KeyClaim("v\u00e4lue", 1700000000123L, true),
				"01010000000676c3a46c75650000018bcfe5687b01");
		assertBytes(new KeyClaim.Serde(), new KeyClaim(null, 42L, false), "0100000000000000002a00");
		// format 2 only for a first-wins claim awaiting its grant: format 1's fields, then the pending flag
		assertBytes(new KeyClaim.Serde(), new KeyClaim("v", 42L, false, true), "02010000000176000000000000002a0001");
		assertBytes(new Owner.Serde(), new Owner("k", -1L, 3, true), "01000000016bffffffffffffffff0000000301");
		assertBytes(new Verdict.Serde(), new Verdict("v", 7L, "w", 9L, Verdict.Reason.LATE, 2),
				"0100000001760000000000000007000000017700000000000000090000000002");
		// the reason byte: LATE and SUPERSEDED as the boolean of old, then REFUSED and GRANTED
		assertBytes(new Verdict.Serde(), new Verdict("v", 7L, "w", 9L, Verdict.Reason.SUPERSEDED, 2),
				"0100000001760000000000000007000000017700000000000000090100000002");
		assertBytes(new Verdict.Serde(), new Verdict("v", 7L, "w", 9L, Verdict.Reason.REFUSED, 2),
				"0100000001760000000000000007000000017700000000000000090200000002");
		assertBytes(new Verdict.Serde(), Verdict.granted("v", "w", 9L, 2),
				"0100000001760000000000000009000000017700000000000000090300000002");
		// format 3, only while erasing: format 2's fields, then the reports awaited
		assertBytes(new KeyClaim.Serde(), new KeyClaim(null, 42L, false, false, 6),
				"0300000000000000002a0000" + "00000006");
		// format 2: partition, count, then each value (key) followed by the fields of format 1
		OwnerCommand release = OwnerCommand.release("k\u00e9y", 1700000000123L, 5);
		assertBytes(new CommandBatch.Serde(), new CommandBatch(5, List.of(new CommandBatch.Entry("v", release))),
				"02000000050000000100000001760000000004" + "6bc3a9790000018bcfe5687b00000005");
		// format 3, only for a batch with an erasure: the command type as its ordinal (2: ERASE) for the boolean
		assertBytes(new CommandBatch.Serde(),
				new CommandBatch(5, List.of(new CommandBatch.Entry("", OwnerCommand.erase("k", 42L, 5)))),
				"030000000500000001000000000200000001" + "6b000000000000002a00000005");
		Verdict late = new Verdict("v", 7L, "w", 9L, Verdict.Reason.LATE, 2);
		assertBytes(new VerdictBatch.Serde(), new VerdictBatch(2, List.of(new VerdictBatch.Entry("k", late))),
				"020000000200000001000000016b" + "00000001760000000000000007000000017700000000000000090000000002");
	}

	@Test
	void shouldWriteEvictionEventsAsDocumentedJson() {
		byte[] json = new EvictionEventSerde().serializer()
			.serialize("t", new EvictionEvent("a", "v", "b", 1, 2, 3, Verdict.Reason.SUPERSEDED));
		assertThat(new String(json)).isEqualTo("{\"key\":\"a\",\"value\":\"v\",\"evictedBy\":\"b\",\"claimTimestamp\":1,"
				+ "\"evictedByTimestamp\":2,\"evictionTimestamp\":3,\"reason\":\"SUPERSEDED\"}");
	}

	@Test
	void shouldRejectCorruptOrUnknownFormats() {
		Serde<Owner> serde = new Owner.Serde();
		assertThatExceptionOfType(SerializationException.class)
			.isThrownBy(() -> serde.deserializer().deserialize("t", new byte[] { 9, 0 }))
			.withMessageContaining("Unknown owner format 9");
		assertThatExceptionOfType(SerializationException.class)
			.isThrownBy(() -> serde.deserializer().deserialize("t", new byte[] { 1, 0, 0, 0, 50 }))
			.withMessageContaining("Corrupt owner record");
		assertThatExceptionOfType(SerializationException.class)
			.isThrownBy(() -> serde.deserializer().deserialize("t", new byte[] { 1, 0, 0, 0, 1, 'k', 0, 0 }))
			.withMessageContaining("Corrupt owner record");
		assertThat(serde.deserializer().deserialize("t", null)).isNull();
		assertThatExceptionOfType(SerializationException.class)
			.isThrownBy(() -> new CommandBatch.Serde().deserializer().deserialize("t", new byte[] { 9 }))
			.withMessageContaining("Unknown owner commands format 9, expected one of [1, 2, 3]");
		assertThatExceptionOfType(SerializationException.class)
			.isThrownBy(() -> new VerdictBatch.Serde().deserializer()
				.deserialize("t", new byte[] { 2, 0, 0, 0, 1, (byte) 0xff, 0, 0, 0 }))
			.withMessageContaining("Corrupt verdicts record");
	}

	private static <T> void assertBytes(Serde<T> serde, T value, String hex) {
		byte[] bytes = serde.serializer().serialize("topic", value);
		assertThat(HexFormat.of().formatHex(bytes)).isEqualTo(hex);
		assertThat(serde.deserializer().deserialize("topic", HexFormat.of().parseHex(hex))).isEqualTo(value);
	}

	private static <T> void assertRoundTrip(Serde<T> serde, T value) {
		byte[] bytes = serde.serializer().serialize("topic", value);
		assertThat(serde.deserializer().deserialize("topic", bytes)).isEqualTo(value);
	}

}
