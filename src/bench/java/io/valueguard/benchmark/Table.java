package io.valueguard.benchmark;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

import io.valueguard.support.KafkaProbe;
import org.jspecify.annotations.Nullable;

/**
 * What an application's output topic says once it has caught up, read as a table (each key's last record, a tombstone
 * deletes): key to value, how many values two or more keys hold, and how far it is from the rule's bindings.
 */
record Table(Map<String, String> bindings) {

	static final Table EMPTY = new Table(Map.of());

	/** Reads {@code topic} from its start to its end, committed records only. */
	static Table read(String bootstrapServers, String topic) {
		try (KafkaProbe kafka = new KafkaProbe(bootstrapServers)) {
			return new Table(kafka.table(topic));
		}
	}

	/** Values that two or more keys hold: each is a broken rule. */
	long sharedValues() {
		Map<String, Integer> holders = new HashMap<>();
		this.bindings.values().forEach((value) -> holders.merge(value, 1, Integer::sum));
		return holders.values().stream().filter((count) -> count > 1).count();
	}

	/** Keys bound to another value than the rule's, or to none where the rule binds one, or the other way round. */
	String differencesFrom(@Nullable Map<String, String> rule) {
		if (rule == null) {
			return "?";
		}
		long differences = rule.entrySet()
			.stream()
			.filter((binding) -> !Objects.equals(this.bindings.get(binding.getKey()), binding.getValue()))
			.count()
				+ this.bindings.keySet().stream().filter((key) -> !rule.containsKey(key)).count();
		return String.format(java.util.Locale.ROOT, "%,d", differences);
	}

}
