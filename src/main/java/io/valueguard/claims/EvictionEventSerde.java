package io.valueguard.claims;

import io.valueguard.codec.RecordSerde;
import tools.jackson.databind.json.JsonMapper;

/** JSON for the evictions topic, which users read: field names are part of the contract. */
public final class EvictionEventSerde extends RecordSerde<EvictionEvent> {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	public EvictionEventSerde() {
		super(JSON::writeValueAsBytes, (bytes) -> (bytes != null) ? JSON.readValue(bytes, EvictionEvent.class) : null);
	}

}
