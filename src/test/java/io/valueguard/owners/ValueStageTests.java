package io.valueguard.owners;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.config.ClaimPolicy;
import io.valueguard.messages.OwnerCommand;
import io.valueguard.messages.Verdict;
import io.valueguard.store.Retention;
import io.valueguard.store.MapTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The value stage's rules that the topology driver cannot reach: it runs both stages as one task, one stream time. */
class ValueStageTests {

	private static final long HOUR = Duration.ofHours(1).toMillis();

	private final Map<String, Owner> owners = new HashMap<>();

	private final List<Verdict> verdicts = new ArrayList<>();

	private final ValueStage stage = new ValueStage(new MapTable<>(this.owners),
			(key, verdict) -> this.verdicts.add(verdict), ClaimPolicy.LATEST_WINS, Retention.of(Duration.ofHours(1)));

	@Test
	void shouldRefuseAClaimMoreThanTheRetentionBehindItsStreamTime() {
		assertThat(this.stage.apply("seat-1", OwnerCommand.claim("alice", HOUR, 2), 5 * HOUR))
			.isEqualTo(ValueStage.Outcome.TOO_OLD);

		assertThat(this.owners).isEmpty();
		assertThat(this.verdicts).containsExactly(Verdict.tooOld("seat-1", HOUR, 5 * HOUR, 2));
		assertThat(this.stage.apply("seat-1", OwnerCommand.claim("bob", 4 * HOUR + 1, 2), 5 * HOUR))
			.as("within the retention").isEqualTo(ValueStage.Outcome.OWNED);
	}

	@Test
	void shouldFreeTheValueWhenItsHolderClaimsItAgainTooLate() {
		this.stage.apply("seat-1", OwnerCommand.claim("alice", HOUR, 2), HOUR);
		// alice claims her value again at a later time, which sends no release; that claim is refused
		this.stage.apply("seat-1", OwnerCommand.claim("alice", 2 * HOUR, 2), 4 * HOUR);

		assertThat(this.owners.get("seat-1").released()).as("alice's earlier claim is not hers any more").isTrue();
		assertThat(this.stage.forgettable(this.owners.get("seat-1"), 4 * HOUR)).isTrue();
		assertThat(this.stage.forgettable(this.owners.get("seat-1"), 2 * HOUR)).as("within the retention").isFalse();
	}

}
