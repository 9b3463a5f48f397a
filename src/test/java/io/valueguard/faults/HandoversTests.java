package io.valueguard.faults;

import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class HandoversTests {

	@Test
	void shouldCountFromARevocationToTheNextGenerationsSync() {
		String log = String.join("\n", revoke("12:05:52.065", "valueguard-keys"),
				synced("12:05:52.020", "valueguard-values"), synced("12:05:54.998", "valueguard-keys"),
				synced("12:05:58.000", "valueguard-keys"));

		Handovers handovers = Handovers.in(Map.of("vg-c", log));

		assertThat(handovers.gaps()).containsExactly(
				new Handovers.Gap("vg-c", "valueguard-keys", "12:05:54.998", Duration.ofMillis(2_933)));
		assertThat(handovers.summary())
			.isEqualTo("1, median 2.93 s, longest 2.93 s (vg-c, valueguard-keys, synced at 12:05:54.998 UTC)");
	}

	@Test
	void shouldKeepEachGroupApartAndSortTheGapsOfEveryInstance() {
		String c = String.join("\n", revoke("12:00:00.000", "valueguard-keys"),
				revoke("12:00:00.500", "valueguard-values"), synced("12:00:01.000", "valueguard-values"),
				synced("12:00:03.000", "valueguard-keys"));
		String a = String.join("\n", revoke("12:00:00.000", "valueguard-keys"),
				synced("12:00:00.250", "valueguard-keys"));

		Handovers handovers = Handovers.in(Map.of("vg-c", c, "vg-a", a));

		assertThat(handovers.gaps()).extracting(Handovers.Gap::length)
			.containsExactly(Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(3));
		assertThat(handovers.summary()).startsWith("3, median 0.50 s, longest 3.00 s (vg-c, valueguard-keys");
	}

	@Test
	void shouldForgetARevocationOfAProcessThatWasKilled() {
		String log = String.join("\n", revoke("12:00:00.000", "valueguard-keys"), "--- start 2 ---",
				synced("12:00:20.000", "valueguard-keys"));

		assertThat(Handovers.in(Map.of("vg-b", log)).gaps()).isEmpty();
		assertThat(Handovers.in(Map.of("vg-b", log)).summary()).isEqualTo("none");
	}

	private static String revoke(String time, String group) {
		return coordinator(time, group, "Request joining group due to: need to revoke partitions "
				+ "[valueguard-eviction-feedback-2, valueguard-rerouted-claims-2, valueguard.claims-2], "
				+ "as those are not in the latest assignment");
	}

	private static String synced(String time, String group) {
		return coordinator(time, group, "Successfully synced group in generation Generation{generationId=28, "
				+ "memberId='vg-c-1-ea290aa9', protocol='stream'}");
	}

	private static String coordinator(String time, String group, String message) {
		return "2026-12-07T" + time + "Z  INFO 3464 --- [valueguard] [-StreamThread-1] "
				+ "o.a.k.c.c.internals.ConsumerCoordinator  : [Consumer instanceId=vg-c-1, clientId=" + group
				+ "-ea290aa9-StreamThread-1-consumer, groupId=" + group + "] " + message;
	}

}
