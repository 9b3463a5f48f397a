package io.valueguard.support;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.claims.ClaimCondition;
import io.valueguard.messages.OwnerCommand;

/**
 * The first-wins rule as a database's unique index applies it, to check the streaming implementation against. Which
 * claim came first is not a property of the input alone: it is the order in which a value's owner-commands partition
 * carries the claims and releases (the commit order, for a database). The model takes that order as given, read from
 * the topic or the simulated partition, and applies the rule to it plainly:
 * <ol>
 * <li>a claim of a value nobody holds, or that its key holds already, takes it; any other claim is refused and
 * forgotten (not queued);</li>
 * <li>a release by the holder frees the value; any other release changes nothing;</li>
 * <li>once all input is processed, a key is bound to v iff its latest record claims v and it holds v.</li>
 * </ol>
 */
public final class FirstWinsModel {

	private final Map<String, String> latest = new HashMap<>();

	private final Map<String, String> holders = new HashMap<>();

	/** Records each key's latest record from the history; records of one key must be in their offset order. */
	public FirstWinsModel history(List<InputRecord> records) {
		for (InputRecord record : records) {
			ClaimCondition condition = record.condition();
			if (condition != null && condition.timestamp() != null) {
				// the key stage's effective timestamps under first-wins depend on its rulings: not modelled here
				throw new IllegalArgumentException("Conditions on a timestamp are not modelled: " + record);
			}
			if (condition != null && !condition.value().equals(this.latest.get(record.key()))) {
				// its claim is gone: as if the record were not there
				continue;
			}
			if (record.value() == null) {
				this.latest.remove(record.key());
			}
			else {
				this.latest.put(record.key(), record.value());
			}
		}
		return this;
	}

	/** Applies one value's command as its partition carried it. */
	public FirstWinsModel arbitrate(String value, OwnerCommand command) {
		String holder = this.holders.get(value);
		if (command.type() == OwnerCommand.Type.CLAIM && (holder == null || holder.equals(command.key()))) {
			this.holders.put(value, command.key());
		}
		else if (command.type() == OwnerCommand.Type.RELEASE && command.key().equals(holder)) {
			this.holders.remove(value);
		}
		return this;
	}

	/** Applies every value's commands, each list in the order its partition carried them. */
	public FirstWinsModel arbitrate(List<Map.Entry<String, OwnerCommand>> commands) {
		commands.forEach((command) -> arbitrate(command.getKey(), command.getValue()));
		return this;
	}

	/** Key to the value it is bound to, once all input is processed. */
	public Map<String, String> bindings() {
		Map<String, String> bindings = new HashMap<>();
		this.latest.forEach((key, value) -> {
			if (key.equals(this.holders.get(value))) {
				bindings.put(key, value);
			}
		});
		return bindings;
	}

	/** Value to the key that owns it: the inverse of {@link #bindings()}. */
	public Map<String, String> owners() {
		Map<String, String> owners = new HashMap<>();
		bindings().forEach((key, value) -> owners.put(value, key));
		return owners;
	}

}
