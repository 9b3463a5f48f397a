package io.valueguard.store;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class StoredKeysTests {

	@Test
	void shouldHoldEveryKeyItStartedWithOrWasGiven() {
		int[] hashes = new int[50_000];
		for (int i = 0; i < hashes.length; i++) {
			hashes[i] = ("account-" + i).hashCode();
		}
		StoredKeys keys = new StoredKeys(hashes, hashes.length);
		// four times what it was sized for: it grows rather than fills
		for (int i = hashes.length; i < 500_000; i++) {
			keys.add("account-" + i);
		}

		for (int i = 0; i < 500_000; i++) {
			assertThat(keys.mayHold("account-" + i)).as("account-%d", i).isTrue();
		}
		assertThat(keys.filters()).isGreaterThan(1);
	}

	@Test
	void shouldSayNoToAlmostEveryOtherKeyAfterGrowing() {
		StoredKeys keys = new StoredKeys(new int[0], 0);
		for (int i = 0; i < 300_000; i++) {
			keys.add("device-" + i);
		}

		int yeses = 0;
		for (int i = 0; i < 100_000; i++) {
			if (keys.mayHold("user-" + i)) {
				yeses++;
			}
		}
		// about 1% per filter, and a key is looked for in each of them
		assertThat(yeses).isLessThan(100_000 * keys.filters() * 2 / 100);
		assertThat(keys.bytes()).isLessThan(300_000L * 4);
	}

	@Test
	void shouldStartWithRoomForTheFewKeysOfANewStore() {
		StoredKeys keys = new StoredKeys(new int[0], 0);
		for (int i = 0; i < StoredKeys.MIN_KEYS; i++) {
			keys.add("seat-" + i);
		}

		assertThat(keys.filters()).isEqualTo(1);
		assertThat(keys.mayHold("licence-1")).isFalse();
	}

}
