package io.valueguard.api;

import java.time.Duration;
import java.util.concurrent.Semaphore;
import java.util.function.Supplier;

import io.valueguard.claims.ClaimPublisher;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.QueryProperties;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.owners.ClaimOrder;
import io.valueguard.routing.ClaimView;
import io.valueguard.routing.LookupRouter;
import io.valueguard.routing.OwnerView;
import io.valueguard.routing.StoreUnavailableException;
import org.jspecify.annotations.Nullable;

import org.springframework.stereotype.Component;

/**
 * Waits for the pipeline to rule on one claim or release, for synchronous writes ({@code ?wait=}). It reads the key's
 * latest claim from the bindings store (where the key stage records it with its effective timestamp) and the value's
 * top claim from the owners store (the authority), wherever the two live, until they show the outcome:
 * <ul>
 * <li>the key's claim of the value is the value's top claim (latest-wins) or holder (first-wins): BOUND;</li>
 * <li>the key lost that claim (evicted or refused), or under latest-wins the value's top claim is greater than it:
 * LOST, with who holds it;</li>
 * <li>otherwise the value stage has not ruled yet, and it looks again until the wait is over.</li>
 * </ul>
 * Under first-wins a greater holder says nothing: the holder may let go before the claim arrives.
 */
@Component
class ClaimRulings {

	private static final Duration POLL = Duration.ofMillis(10);

	private final LookupRouter router;

	/** One permit per request that may wait at once ({@code valueguard.query.max-waiting}). */
	private final Semaphore waiting;

	private final boolean firstWins;

	ClaimRulings(LookupRouter router, QueryProperties properties, ValueGuardProperties settings) {
		this.router = router;
		this.waiting = new Semaphore(properties.maxWaiting());
		this.firstWins = settings.policy() == ClaimPolicy.FIRST_WINS;
	}

	/**
	 * The ruling on the claim the receipt names, or null when there was none within {@code wait}, or when as many
	 * requests wait already as may: the claim is published either way, and its caller gets a 202.
	 */
	@Nullable Ruling awaitClaim(ClaimPublisher.Receipt receipt, Duration wait) {
		return whileAllowedToWait(() -> ruling(receipt, wait));
	}

	/** The release the receipt names once it has taken effect; null as for {@link #awaitClaim}. */
	@Nullable Release awaitRelease(ClaimPublisher.Receipt receipt, Duration wait) {
		return whileAllowedToWait(() -> release(receipt, wait));
	}

	private @Nullable Ruling ruling(ClaimPublisher.Receipt receipt, Duration wait) {
		String value = receipt.value();
		long deadline = System.nanoTime() + wait.toNanos();
		do {
			ClaimView claim = read(() -> this.router.claim(receipt.key(), null).entry());
			// the key stage has applied this record once the key's claim is of this value, at its time or later
			if (claim != null && value.equals(claim.value()) && claim.timestamp() >= receipt.timestamp()) {
				OwnerView owner = read(() -> this.router.ownerNow(value).entry());
				Ruling ruling = rule(claim, owner);
				if (ruling != null) {
					return ruling;
				}
			}
		}
		while (pause(deadline));
		return null;
	}

	private @Nullable Release release(ClaimPublisher.Receipt receipt, Duration wait) {
		long deadline = System.nanoTime() + wait.toNanos();
		do {
			ClaimView claim = read(() -> this.router.claim(receipt.key(), null).entry());
			if (claim != null && claim.value() == null && claim.timestamp() >= receipt.timestamp()) {
				return Release.of(receipt.key(), claim.timestamp());
			}
		}
		while (pause(deadline));
		return null;
	}

	/**
	 * Waits until an erasure is done: the key stage's entry showed the erasure under way, and then was gone, which it
	 * is once every value stage partition has erased the name. Null if that was not seen within the wait.
	 */
	@Nullable Release awaitErasure(ClaimPublisher.Receipt receipt, Duration wait) {
		return whileAllowedToWait(() -> erasure(receipt, wait));
	}

	/** Waits for the answer unless as many requests wait already as may: then there is none. */
	private <T> @Nullable T whileAllowedToWait(Supplier<@Nullable T> answer) {
		if (!this.waiting.tryAcquire()) {
			return null;
		}
		try {
			return answer.get();
		}
		finally {
			this.waiting.release();
		}
	}

	private @Nullable Release erasure(ClaimPublisher.Receipt receipt, Duration wait) {
		long deadline = System.nanoTime() + wait.toNanos();
		@Nullable ClaimView erasing = null;
		do {
			try {
				ClaimView claim = this.router.claim(receipt.key(), null).entry();
				if (claim != null && claim.erasing()) {
					erasing = claim;
				}
				else if (claim == null && erasing != null) {
					return new Release(receipt.key(), erasing.timestamp(), "ERASED");
				}
			}
			catch (StoreUnavailableException ex) {
				// a rebalance or a restore: look again
			}
		}
		while (pause(deadline));
		return null;
	}

	private @Nullable Ruling rule(ClaimView claim, @Nullable OwnerView owner) {
		String value = claim.value();
		if (owner != null && owner.key().equals(claim.key()) && owner.timestamp() == claim.timestamp()) {
			return new Ruling(claim.key(), value, claim.timestamp(), Ruling.Outcome.BOUND,
					new Ruling.Holder(owner.key(), owner.timestamp()));
		}
		if (this.firstWins) {
			return firstWinsRule(claim, owner);
		}
		if (owner != null
				&& ClaimOrder.compare(owner.timestamp(), owner.key(), claim.timestamp(), claim.key()) > 0) {
			return new Ruling(claim.key(), value, claim.timestamp(), Ruling.Outcome.LOST,
					new Ruling.Holder(owner.key(), owner.timestamp()));
		}
		if (!claim.bound()) {
			// evicted, and the claim that took the value has been released since: nobody holds it now
			return new Ruling(claim.key(), value, claim.timestamp(), Ruling.Outcome.LOST,
					(owner != null) ? new Ruling.Holder(owner.key(), owner.timestamp()) : null);
		}
		return null;
	}

	/** First-wins: the key stage's record decides, once the ruling is back; the holder is only named. */
	private static @Nullable Ruling firstWinsRule(ClaimView claim, @Nullable OwnerView owner) {
		if (claim.pending()) {
			return null;
		}
		Ruling.Outcome outcome = claim.bound() ? Ruling.Outcome.BOUND : Ruling.Outcome.LOST;
		Ruling.Holder holder = claim.bound() ? new Ruling.Holder(claim.key(), claim.timestamp())
				: (owner != null) ? new Ruling.Holder(owner.key(), owner.timestamp()) : null;
		return new Ruling(claim.key(), claim.value(), claim.timestamp(), outcome, holder);
	}

	/** A read that may not be possible right now (a rebalance, a restore): then there is no answer yet. */
	private static <T> @Nullable T read(Supplier<@Nullable T> lookup) {
		try {
			return lookup.get();
		}
		catch (StoreUnavailableException ex) {
			return null;
		}
	}

	/** Pauses before the next look; false once the wait is over. */
	private static boolean pause(long deadline) {
		if (System.nanoTime() + POLL.toNanos() > deadline) {
			return false;
		}
		try {
			Thread.sleep(POLL.toMillis());
			return true;
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			return false;
		}
	}

}
