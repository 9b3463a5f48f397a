package io.valueguard.codec;

import java.util.function.Function;

import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.Serde;
import org.apache.kafka.common.serialization.Serializer;
import org.jspecify.annotations.Nullable;

/**
 * A serde for one record type from an encode and a decode function. Subclasses exist only to give each record a
 * class name that configuration can refer to; they are created once per topology, never per record.
 */
public abstract class RecordSerde<T> implements Serde<T> {

	private final Serializer<T> serializer;

	private final Deserializer<T> deserializer;

	protected RecordSerde(Function<T, byte[]> encode, Function<byte @Nullable [], @Nullable T> decode) {
		this.serializer = (topic, data) -> (data != null) ? encode.apply(data) : null;
		this.deserializer = (topic, bytes) -> decode.apply(bytes);
	}

	@Override
	public Serializer<T> serializer() {
		return this.serializer;
	}

	@Override
	public Deserializer<T> deserializer() {
		return this.deserializer;
	}

}
