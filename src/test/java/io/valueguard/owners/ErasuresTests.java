package io.valueguard.owners;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.Verdict;
import io.valueguard.store.MapTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the sweep's passes carry out erasures (docs/design.md, "Erasure"). With retention on, passes run one after
 * another by the schedule, and an erasure that arrives while one is under way joins it: it is done once the sweep has
 * read every entry once since, coming round to where it joined, not at the end of the pass after.
 */
class ErasuresTests {

	private final List<String> reports = new ArrayList<>();

	private final Erasures erasures = new Erasures(new MapTable<>(), (key, verdict) -> {
		assertThat(verdict.reason()).isEqualTo(Verdict.Reason.ERASED);
		this.reports.add(key);
	}, ClaimPolicy.LATEST_WINS);

	/** The owners store: values a to j, each held by another key, mallory's among them. */
	private final TreeMap<String, Owner> owners = new TreeMap<>();

	ErasuresTests() {
		for (char value = 'a'; value <= 'j'; value++) {
			this.owners.put(String.valueOf(value), new Owner((value == 'c' || value == 'h') ? "mallory" : "k" + value,
					100, 0, false));
		}
	}

	@Test
	void shouldFinishAnErasureThatJoinedAPassOnceTheNextComesRoundToWhereItJoined() {
		this.erasures.passStarts();
		int read = sweep(null, "e");
		this.erasures.queue("mallory", 500, 3);
		read += sweep("e", null);
		assertThat(this.owners.get("h").erased()).as("rewritten where the pass went on").isTrue();
		assertThat(this.owners.get("c").erased()).as("read before the erasure came").isFalse();
		this.erasures.passEnded();
		assertThat(this.reports).isEmpty();

		this.erasures.passStarts();
		read += sweep(null, "e");
		assertThat(this.reports).as("every entry read once since the erasure came").containsExactly("mallory");
		assertThat(this.owners.get("c").erased()).isTrue();
		assertThat(read - 5).as("entries read after it came: one pass").isEqualTo(this.owners.size());
		assertThat(this.erasures.pending()).isFalse();
		read += sweep("e", null);
		this.erasures.passEnded();
		assertThat(this.reports).as("reported once").containsExactly("mallory");
	}

	@Test
	void shouldFinishAnErasureThatCameBeforeAPassReadAnythingWithThatPass() {
		this.erasures.queue("mallory", 500, 3);
		this.erasures.passStarts();
		sweep(null, "e");
		assertThat(this.reports).isEmpty();
		sweep("e", null);
		this.erasures.passEnded();

		assertThat(this.reports).containsExactly("mallory");
		assertThat(this.owners.values()).noneMatch((owner) -> owner.key().equals("mallory"));
	}

	/** An erasure that joined after the pass's last entry is done at the end of the next. */
	@Test
	void shouldFinishAnErasureThatJoinedAtTheEndOfAPassWithTheNext() {
		this.erasures.passStarts();
		sweep(null, null);
		this.erasures.queue("mallory", 500, 3);
		this.erasures.passEnded();
		assertThat(this.reports).isEmpty();

		this.erasures.passStarts();
		sweep(null, "i");
		assertThat(this.reports).isEmpty();
		sweep("i", null);
		this.erasures.passEnded();
		assertThat(this.reports).containsExactly("mallory");
		assertThat(this.owners.values()).noneMatch((owner) -> owner.key().equals("mallory"));
	}

	/** Reads the entries after {@code after} up to {@code through} (both null: the store's ends), as a slice does. */
	private int sweep(String after, String through) {
		int read = 0;
		for (String value : new ArrayList<>(this.owners.keySet())) {
			if ((after != null && value.compareTo(after) <= 0) || (through != null && value.compareTo(through) > 0)) {
				continue;
			}
			Owner kept = this.erasures.rewrite(value, this.owners.get(value));
			this.owners.put(value, kept);
			read++;
			this.erasures.passedTo(value);
		}
		return read;
	}

}
