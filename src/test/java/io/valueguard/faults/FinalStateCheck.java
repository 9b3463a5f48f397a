package io.valueguard.faults;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.support.ApiClient;
import io.valueguard.support.InputRecord;
import io.valueguard.support.InstanceProcess;
import io.valueguard.support.KafkaProbe;
import io.valueguard.support.ReferenceModel;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What must hold after any run of faults, checked against the reference model computed from the claims topic as
 * written: every instance answers for every key and value as the model says (listings and one lookup per key and
 * value), the bindings topic read with read_committed agrees, no eviction was written twice, no answer was a 500,
 * and no streams client ever reached ERROR but by a fence it recovered from ({@link ClientErrors}).
 */
final class FinalStateCheck {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private static final Duration PATIENCE = Duration.ofMinutes(4);

	private final String bootstrapServers;

	private final List<InstanceProcess> instances;

	private final String reproduce;

	FinalStateCheck(String bootstrapServers, List<InstanceProcess> instances, String reproduce) {
		this.bootstrapServers = bootstrapServers;
		this.instances = instances;
		this.reproduce = reproduce;
	}

	/** Checks everything; {@code minimumClaims} is how many claims the topic must hold at least. */
	void verify(int minimumClaims, List<LookupProbe.Answer> answers) {
		List<InputRecord> written = written(minimumClaims);
		ReferenceModel expected = new ReferenceModel().apply(written);

		for (InstanceProcess instance : this.instances) {
			await("listings of " + instance.name() + " match the model (" + this.reproduce + ")").atMost(PATIENCE)
				.pollInterval(Duration.ofSeconds(2))
				.untilAsserted(() -> {
					assertThat(listing(instance.api(), "/api/bindings", "key", "value")).isEqualTo(expected.bindings());
					assertThat(listing(instance.api(), "/api/owners", "value", "key")).isEqualTo(expected.owners());
				});
		}
		for (InstanceProcess instance : this.instances) {
			assertThat(instance.api().boundValues(InputRecord.keysOf(written)))
				.as("every key looked up on %s (%s)", instance.name(), this.reproduce)
				.isEqualTo(expected.bindings());
			assertThat(instance.api().owners(InputRecord.valuesOf(written)))
				.as("every value looked up on %s (%s)", instance.name(), this.reproduce)
				.isEqualTo(expected.owners());
		}
		try (KafkaProbe kafka = new KafkaProbe(this.bootstrapServers)) {
			await("the bindings topic matches the model (" + this.reproduce + ")").atMost(PATIENCE)
				.pollInterval(Duration.ofSeconds(2))
				.untilAsserted(() -> assertThat(kafka.table("valueguard.bindings", InputRecord.keysOf(written)))
					.isEqualTo(expected.bindings()));
			List<EvictionAudit.Claim> evictions = new ArrayList<>();
			for (ConsumerRecord<byte[], byte[]> record : kafka.readAll("valueguard.evictions")) {
				JsonNode event = JSON.readTree(record.value());
				evictions.add(new EvictionAudit.Claim(event.get("key").asString(), event.get("value").asString(),
						event.get("claimTimestamp").asLong()));
			}
			assertThat(evictions).as("evictions happened").isNotEmpty();
			assertThat(new EvictionAudit(written).excess(evictions))
				.as("evictions written twice (%s)", this.reproduce)
				.isEmpty();
		}
		answeredWithoutFailing(answers);
	}

	/**
	 * Checks what must hold under first-wins, whose outcome depends on the order in which the owner-commands partitions
	 * carried the claims, which the claims topic does not tell, so that no model computes it: every instance lists the
	 * same bindings and no value bound to two keys; each key's claim as the key stage keeps it is its latest record's,
	 * none still awaits its ruling, and a bound key holds its latest claim's value; the owners listing is the bindings'
	 * inverse; the bindings topic read with read_committed agrees; no answer was a 500 and no streams client reached
	 * ERROR.
	 */
	void verifyFirstWins(int minimumClaims, List<LookupProbe.Answer> answers) {
		List<InputRecord> written = written(minimumClaims);
		Map<String, InputRecord> latest = new HashMap<>();
		written.forEach((record) -> latest.put(record.key(), record));
		Map<String, String> bindings = new HashMap<>();
		await("every instance lists the same bindings (" + this.reproduce + ")").atMost(PATIENCE)
			.pollInterval(Duration.ofSeconds(2))
			.untilAsserted(() -> {
				Map<String, String> first = listing(this.instances.get(0).api(), "/api/bindings", "key", "value");
				for (InstanceProcess instance : this.instances) {
					assertThat(listing(instance.api(), "/api/bindings", "key", "value")).as(instance.name())
						.isEqualTo(first);
				}
				bindings.clear();
				bindings.putAll(first);
			});
		Map<String, String> owners = new HashMap<>();
		bindings.forEach((key, value) -> assertThat(owners.put(value, key))
			.as("value %s bound to %s and to %s (%s)", value, key, owners.get(value), this.reproduce)
			.isNull());
		ApiClient api = this.instances.get(0).api();
		for (InputRecord record : latest.values()) {
			ApiClient.Reply reply = api.get("/api/claims/" + ApiClient.parameter(record.key()));
			if (reply.status() == 404) {
				// a key that only ever let go holds no claim
				assertThat(record.value()).as("%s has no claim, but its latest record is %s (%s)", record.key(), record,
						this.reproduce)
					.isNull();
				continue;
			}
			JsonNode claim = reply.json();
			assertThat(claim.get("pending").asBoolean()).as("%s still awaits its ruling (%s)", claim, this.reproduce)
				.isFalse();
			assertThat(claim.get("value").isNull() ? null : claim.get("value").asString())
				.as("%s as the key stage keeps it, against its latest record %s (%s)", claim, record, this.reproduce)
				.isEqualTo(record.value());
			assertThat(bindings.get(record.key())).as("binding of %s, whose latest record is %s (%s)", record.key(),
					record, this.reproduce)
				.isIn(null, record.value());
		}
		assertThat(listing(api, "/api/owners", "value", "key")).as("owners listing (%s)", this.reproduce)
			.isEqualTo(owners);
		try (KafkaProbe kafka = new KafkaProbe(this.bootstrapServers)) {
			await("the bindings topic matches the listings (" + this.reproduce + ")").atMost(PATIENCE)
				.pollInterval(Duration.ofSeconds(2))
				.untilAsserted(() -> assertThat(kafka.table("valueguard.bindings", InputRecord.keysOf(written)))
					.isEqualTo(bindings));
		}
		answeredWithoutFailing(answers);
	}

	/** The claims topic as written, at least {@code minimumClaims} of them. */
	private List<InputRecord> written(int minimumClaims) {
		List<InputRecord> written = new ArrayList<>();
		try (KafkaProbe kafka = new KafkaProbe(this.bootstrapServers)) {
			for (ConsumerRecord<byte[], byte[]> record : kafka.readAll("valueguard.claims")) {
				written.add(new InputRecord(text(record.key()), (record.value() != null) ? text(record.value()) : null,
						record.timestamp()));
			}
		}
		assertThat(written.size()).as("claims written").isGreaterThanOrEqualTo(minimumClaims);
		return written;
	}

	/** No answer was a 500, and no streams client reached ERROR but by a fence it recovered from. */
	private void answeredWithoutFailing(List<LookupProbe.Answer> answers) {
		assertThat(answers.stream().filter((answer) -> answer.status() == 500).toList())
			.as("answers of 500 (%s)", this.reproduce)
			.isEmpty();
		for (InstanceProcess instance : this.instances) {
			ClientErrors errors = ClientErrors.in(instance.log());
			errors.fences()
				.forEach((line) -> System.out.println("A streams client of " + instance.name()
						+ " was fenced from its group and restarted in place (KAFKA-20985): " + line));
			assertThat(errors.failures())
				.as("a streams client of %s reached ERROR (%s; whole log in %s)", instance.name(), this.reproduce,
						instance.logFile().toAbsolutePath())
				.isEmpty();
		}
	}

	/** The whole store, read page by page through the instance's listing. */
	private static Map<String, String> listing(ApiClient api, String path, String idField, String field) {
		Map<String, String> entries = new HashMap<>();
		String after = null;
		do {
			ApiClient.Reply reply = api.get(path + "?limit=1000"
					+ ((after != null) ? "&after=" + ApiClient.parameter(after) : ""));
			assertThat(reply.status()).as(reply.body()).isEqualTo(200);
			JsonNode page = reply.json();
			page.get("items").forEach((item) -> entries.put(item.get(idField).asString(), item.get(field).asString()));
			after = (page.get("next") != null && !page.get("next").isNull()) ? page.get("next").asString() : null;
		}
		while (after != null);
		return entries;
	}

	private static String text(byte[] bytes) {
		return new String(bytes, StandardCharsets.UTF_8);
	}

}
