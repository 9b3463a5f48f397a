package io.valueguard.system;

import io.valueguard.messages.Eviction;
import io.valueguard.claims.EvictionEvent;
import io.valueguard.claims.EvictionEventSerde;
import io.valueguard.claims.KeyClaim;
import io.valueguard.owners.Owner;
import io.valueguard.messages.OwnerCommand;
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
		assertRoundTrip(new Eviction.Serde(), new Eviction("v", 1, "w", 2, Eviction.Reason.LATE, 4));
		assertRoundTrip(new EvictionEventSerde(),
				new EvictionEvent("a", "v", "b", 1, 2, 3, Eviction.Reason.SUPERSEDED));
	}

	@Test
	void shouldWriteEvictionEventsAsDocumentedJson() {
		byte[] json = new EvictionEventSerde().serializer()
			.serialize("t", new EvictionEvent("a", "v", "b", 1, 2, 3, Eviction.Reason.SUPERSEDED));
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
		assertThat(serde.deserializer().deserialize("t", null)).isNull();
	}

	private static <T> void assertRoundTrip(Serde<T> serde, T value) {
		byte[] bytes = serde.serializer().serialize("topic", value);
		assertThat(serde.deserializer().deserialize("topic", bytes)).isEqualTo(value);
	}

}
