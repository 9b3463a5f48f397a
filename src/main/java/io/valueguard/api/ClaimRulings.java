package io.valueguard.api;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.valueguard.claims.ClaimCondition;
import io.valueguard.claims.ClaimPublisher;
import io.valueguard.config.ClaimPolicy;
import io.valueguard.config.QueryProperties;
import io.valueguard.config.ValueGuardProperties;
import io.valueguard.messages.RulingBell;
import io.valueguard.routing.ClaimView;
import io.valueguard.routing.LookupRouter;
import io.valueguard.routing.OwnerView;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Waits for the pipeline to rule on one claim or release, for synchronous writes ({@code ?wait=}). It reads the key's
 * latest claim from the bindings store (where the key stage records it with its effective timestamp) and the value's
 * top claim from the owners store (the authority), wherever the two live, until they show the outcome:
 * <ul>
 * <li>latest-wins: the key's claim of the value is the value's top claim: BOUND; the key's record shows the claim lost
 * (evicted or refused): LOST, with who holds the value;</li>
 * <li>first-wins: BOUND once the value's holder is this very claim, the value stage's grant, while the key's record
 * still waits for it; LOST once the key's record shows the claim refused, with who holds the value;</li>
 * <li>otherwise the ruling has not reached the key yet, and it looks again until the wait is over.</li>
 * </ul>
 * The answer is never ahead of what a lookup of the key says, so that a caller who reads its binding right after the
 * answer ({@code GET /api/bindings/{key}}) sees what it was told. A first-wins grant reaches the key's record as a
 * verdict, one commit of the value stage after the holder shows it; binding lookups of a pending claim therefore ask
 * the value's holder too ({@link io.valueguard.routing.BindingLookups}), so that the answer need not wait for that
 * commit. A refusal cannot be told from the holder: another key holding the value says nothing before the value stage
 * has ruled on this claim, since the holder may let go first, so LOST waits for the key's record.
 * <p>
 * The looking is done by one {@link WaitLoop} for all waiting requests together, so that its cost does not grow with
 * their number.
 */
@Component
class ClaimRulings implements SmartLifecycle, AutoCloseable {

	/**
	 * How long waits still open when the instance begins to shut down may go on waiting for their ruling; the stream
	 * threads still run meanwhile, and a ruling takes a few commit intervals.
	 */
	static final Duration LAST_CALL = Duration.ofSeconds(2);

	private final WaitLoop loop;

	/** One permit per request that may wait at once ({@code valueguard.query.max-waiting}). */
	private final Semaphore waiting;

	private final boolean firstWins;

	/**
	 * {@code valueguard_waits_total{outcome}}: answered, expired (202 after the wait), refused (202 at once), abandoned
	 * (the request ended before its answer: the client went away).
	 */
	private final Counter answered;

	private final Counter expired;

	private final Counter refused;

	private final Counter abandoned;

	/** Between the application's start and the end of the last call of its shutdown. */
	private volatile boolean running;

	/** {@code valueguard_waits_duration_seconds{kind}}: how long answered waits took, by what they waited for. */
	private final Timer claimTime;

	private final Timer releaseTime;

	private final Timer erasureTime;

	@Autowired
	ClaimRulings(LookupRouter router, QueryProperties properties, ValueGuardProperties settings, RulingBell bell,
			MeterRegistry registry) {
		this(router, properties, settings, bell, registry, WaitLoop.POLL);
	}

	/** @param poll how long the wait loop waits between rounds when the bell does not ring: longer in tests */
	ClaimRulings(LookupRouter router, QueryProperties properties, ValueGuardProperties settings, RulingBell bell,
			MeterRegistry registry, Duration poll) {
		this.loop = new WaitLoop(router, properties.maxBatchSize(), poll);
		// a stage of this instance applied something a caller may wait for: look now, not at the next poll
		bell.listen(this.loop::wake);
		this.waiting = new Semaphore(properties.maxWaiting());
		this.firstWins = settings.policy() == ClaimPolicy.FIRST_WINS;
		int most = properties.maxWaiting();
		Gauge.builder("valueguard.waiting.requests", this.waiting, (permits) -> most - permits.availablePermits())
			.description("Synchronous writes (?wait=) waiting for their ruling now; at most valueguard.query.max-waiting")
			.register(registry);
		this.answered = waits(registry, "answered");
		this.expired = waits(registry, "expired");
		this.refused = waits(registry, "refused");
		this.abandoned = waits(registry, "abandoned");
		this.claimTime = waitTime(registry, "claim");
		this.releaseTime = waitTime(registry, "release");
		this.erasureTime = waitTime(registry, "erasure");
	}

	private static Timer waitTime(MeterRegistry registry, String kind) {
		return Timer.builder("valueguard.waits.duration")
			.description("How long answered synchronous writes (?wait=) waited for their ruling, from Kafka's "
					+ "acknowledgement of the write: claim, release or erasure")
			.tag("kind", kind)
			.publishPercentileHistogram()
			.minimumExpectedValue(Duration.ofMillis(1))
			.maximumExpectedValue(Duration.ofMinutes(1))
			.register(registry);
	}

	private static Counter waits(MeterRegistry registry, String outcome) {
		return Counter.builder("valueguard.waits")
			.description("Synchronous writes by how their wait ended: answered, expired without a ruling (202), "
					+ "refused a wait because max-waiting requests waited already (202 at once), or abandoned when "
					+ "the request ended first (the client went away)")
			.tag("outcome", outcome)
			.register(registry);
	}

	/**
	 * The ruling on the claim the receipt names, or null when there was none within {@code wait}, or at once when as
	 * many requests wait already as may: the claim is published either way, and its caller gets a 202. No thread
	 * waits for it.
	 */
	CompletableFuture<@Nullable Ruling> ruling(ClaimPublisher.Receipt receipt, Duration wait) {
		return whileAllowedToWait(this.claimTime, () -> this.loop.submit(new ClaimWait(receipt), wait));
	}

	/** The release the receipt names once it has taken effect; null as for {@link #ruling}. */
	CompletableFuture<@Nullable Release> release(ClaimPublisher.Receipt receipt, Duration wait) {
		return whileAllowedToWait(this.releaseTime, () -> this.loop.submit(new ReleaseWait(receipt), wait));
	}

	/**
	 * What the conditional release the receipt names did, once the key's claim shows it: {@link Release#NOT_RELEASED}
	 * when the claim {@code condition} names had gone before it arrived; null as for {@link #ruling}.
	 */
	CompletableFuture<@Nullable Release> conditionalRelease(ClaimPublisher.Receipt receipt, ClaimCondition condition,
			Duration wait) {
		return whileAllowedToWait(this.releaseTime,
				() -> this.loop.submit(new ConditionalReleaseWait(receipt, condition), wait));
	}

	/**
	 * The ruling on the conditional claim the receipt names (a move from the claim {@code condition} names), or
	 * {@link MoveNotMade} once the key's claim shows that it had left that claim before this one arrived; null as for
	 * {@link #ruling}.
	 */
	CompletableFuture<@Nullable Object> conditionalClaim(ClaimPublisher.Receipt receipt, ClaimCondition condition,
			Duration wait) {
		return whileAllowedToWait(this.claimTime,
				() -> this.loop.submit(new ConditionalClaimWait(receipt, condition), wait));
	}

	/**
	 * The erasure the receipt names once it is done: the key stage's entry showed the erasure under way, and then was
	 * gone, which it is once every value stage partition has erased the name. Null if that was not seen within the
	 * wait.
	 */
	CompletableFuture<@Nullable Release> erasure(ClaimPublisher.Receipt receipt, Duration wait) {
		return whileAllowedToWait(this.erasureTime, () -> this.loop.submit(new ErasureWait(receipt), wait));
	}

	/** The answer, unless as many requests wait already as may: then none, at once. */
	private <T> CompletableFuture<@Nullable T> whileAllowedToWait(Timer answerTime,
			Supplier<CompletableFuture<@Nullable T>> answer) {
		if (!this.waiting.tryAcquire()) {
			this.refused.increment();
			return CompletableFuture.completedFuture(null);
		}
		long started = System.nanoTime();
		CompletableFuture<@Nullable T> waiting;
		try {
			waiting = answer.get();
		}
		catch (RuntimeException ex) {
			this.waiting.release();
			throw ex;
		}
		CompletableFuture<@Nullable T> result = new CompletableFuture<>();
		waiting.whenComplete((answered, failure) -> {
			this.waiting.release();
			if (answered != null) {
				answerTime.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
				this.answered.increment();
			}
			else if (failure instanceof CancellationException) {
				this.abandoned.increment();
			}
			else {
				this.expired.increment();
			}
			// only now, so that whoever the answer reaches finds the permit back
			if (failure != null) {
				result.completeExceptionally(failure);
			}
			else {
				result.complete(answered);
			}
		});
		// a caller that no longer wants the answer (its client went away) cancels it: the wait ends at once, and with
		// it its permit and its place in the loop's reads, instead of lasting out its patience for nobody
		result.whenComplete((answered, failure) -> {
			if (result.isCancelled()) {
				waiting.cancel(false);
			}
		});
		return result;
	}

	@Override
	public void start() {
		this.loop.resume();
		this.running = true;
	}

	@Override
	public void stop() {
		stop(() -> {
		});
	}

	/** Answers the open waits within {@link #LAST_CALL}, before the server waits for its open requests to end. */
	@Override
	public void stop(Runnable callback) {
		this.loop.drain(LAST_CALL, () -> {
			this.running = false;
			callback.run();
		});
	}

	@Override
	public boolean isRunning() {
		return this.running;
	}

	/** Just before the web server's graceful shutdown, which then has no wait left to wait for. */
	@Override
	public int getPhase() {
		return WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE + 1;
	}

	@Override
	public void close() {
		this.loop.close();
	}

	/** A claim's wait: decided once the key stage has applied it and the value's holder (or the key's record) shows. */
	private final class ClaimWait extends WaitLoop.Wait<Ruling> {

		private final ClaimPublisher.Receipt receipt;

		ClaimWait(ClaimPublisher.Receipt receipt) {
			super(receipt.key());
			this.receipt = receipt;
		}

		@Override
		@Nullable String holderNeeded(@Nullable ClaimView claim) {
			if (!applied(claim)) {
				return null;
			}
			// under first-wins a bound claim needs no holder; a pending one may have been granted, a refused one
			// names who holds the value
			return (!ClaimRulings.this.firstWins || !claim.bound()) ? this.receipt.value() : null;
		}

		/** The key stage has applied this record once the key's claim is of this value, at its time or later. */
		boolean applied(@Nullable ClaimView claim) {
			return claim != null && this.receipt.value().equals(claim.value())
					&& claim.timestamp() >= this.receipt.timestamp();
		}

		@Override
		@Nullable Ruling decide(@Nullable ClaimView claim, @Nullable OwnerView holder) {
			return applied(claim) ? rule(claim, holder) : null;
		}

	}

	/** The answer to a conditional claim that the key stage did not apply: its key had left the claim named. */
	record MoveNotMade() {

	}

	/**
	 * A conditional claim: once applied, ruled as any claim. A key's effective timestamps never go back, and the
	 * claim's is at least the receipt's: so an entry other than the named claim with an earlier timestamp shows the key
	 * left that claim before this one arrived, and the key stage, applying this one after, found it gone. An entry at
	 * or after the receipt's timestamp that is not this claim does not tell whether this claim was applied and then
	 * left, or passed over: it waits on, and without a ruling the answer is 202, as for a claim whose key moved on
	 * before its ruling was seen.
	 */
	private final class ConditionalClaimWait extends WaitLoop.Wait<Object> {

		private final ClaimWait ruling;

		private final ClaimPublisher.Receipt receipt;

		private final ClaimCondition condition;

		ConditionalClaimWait(ClaimPublisher.Receipt receipt, ClaimCondition condition) {
			super(receipt.key());
			this.ruling = new ClaimWait(receipt);
			this.receipt = receipt;
			this.condition = condition;
		}

		@Override
		@Nullable String holderNeeded(@Nullable ClaimView claim) {
			return this.ruling.holderNeeded(claim);
		}

		@Override
		@Nullable Object decide(@Nullable ClaimView claim, @Nullable OwnerView holder) {
			if (this.ruling.applied(claim)) {
				return this.ruling.decide(claim, holder);
			}
			if (claim == null || claim.timestamp() >= this.receipt.timestamp() || names(this.condition, claim)) {
				return null;
			}
			return new MoveNotMade();
		}

	}

	private static final class ReleaseWait extends WaitLoop.Wait<Release> {

		private final ClaimPublisher.Receipt receipt;

		ReleaseWait(ClaimPublisher.Receipt receipt) {
			super(receipt.key());
			this.receipt = receipt;
		}

		@Override
		@Nullable Release decide(@Nullable ClaimView claim, @Nullable OwnerView holder) {
			return (claim != null && claim.value() == null && claim.timestamp() >= this.receipt.timestamp())
					? Release.of(key(), claim.timestamp()) : null;
		}

	}

	/**
	 * A release of the claim {@code condition} names, which carries its effective timestamp: a key's claims only move
	 * forward in time, so once the key's entry is another claim, the release found its claim gone, or took it (and the
	 * key moved on since): either way that claim no longer holds. A release in the entry at or after the receipt's
	 * timestamp is the release's own (or a later one's).
	 */
	private static final class ConditionalReleaseWait extends WaitLoop.Wait<Release> {

		private final ClaimPublisher.Receipt receipt;

		private final ClaimCondition condition;

		ConditionalReleaseWait(ClaimPublisher.Receipt receipt, ClaimCondition condition) {
			super(receipt.key());
			this.receipt = receipt;
			this.condition = condition;
		}

		@Override
		@Nullable Release decide(@Nullable ClaimView claim, @Nullable OwnerView holder) {
			if (claim != null && names(this.condition, claim)) {
				return null;
			}
			if (claim != null && !claim.erasing() && claim.value() == null
					&& claim.timestamp() >= this.receipt.timestamp()) {
				return Release.of(key(), claim.timestamp());
			}
			return new Release(key(), (claim != null) ? claim.timestamp() : this.receipt.timestamp(),
					Release.NOT_RELEASED);
		}

	}

	/** True when the key's entry is still the claim {@code condition} names: the conditional record is not applied yet. */
	private static boolean names(ClaimCondition condition, ClaimView claim) {
		return !claim.erasing() && condition.value().equals(claim.value())
				&& Objects.equals(condition.timestamp(), claim.timestamp());
	}

	/** Only the loop's thread sees {@code erasing}. */
	private static final class ErasureWait extends WaitLoop.Wait<Release> {

		private @Nullable ClaimView erasing;

		ErasureWait(ClaimPublisher.Receipt receipt) {
			super(receipt.key());
		}

		@Override
		@Nullable Release decide(@Nullable ClaimView claim, @Nullable OwnerView holder) {
			if (claim != null && claim.erasing()) {
				this.erasing = claim;
			}
			else if (claim == null && this.erasing != null) {
				return new Release(key(), this.erasing.timestamp(), "ERASED");
			}
			return null;
		}

	}

	private @Nullable Ruling rule(ClaimView claim, @Nullable OwnerView owner) {
		if (this.firstWins) {
			return firstWinsRule(claim, owner);
		}
		String value = claim.value();
		if (claim.bound() && owner != null && owner.key().equals(claim.key())
				&& owner.timestamp() == claim.timestamp()) {
			return new Ruling(claim.key(), value, claim.timestamp(), Ruling.Outcome.BOUND,
					new Ruling.Holder(owner.key(), owner.timestamp()));
		}
		if (!claim.bound()) {
			// evicted or refused; a greater top claim alone does not answer, the key has to know it lost first. With
			// no holder the claim that took the value has been released since: nobody holds it now
			return new Ruling(claim.key(), value, claim.timestamp(), Ruling.Outcome.LOST,
					(owner != null) ? new Ruling.Holder(owner.key(), owner.timestamp()) : null);
		}
		return null;
	}

	/**
	 * First-wins: BOUND exactly when a lookup of the key shows the binding ({@link ClaimView#binding}), which it does
	 * from the value stage's grant on, before the grant reaches the key; LOST once the key's record shows the refusal,
	 * naming the holder.
	 */
	private static @Nullable Ruling firstWinsRule(ClaimView claim, @Nullable OwnerView owner) {
		boolean bound = claim.binding(owner) != null;
		if (claim.pending() && !bound) {
			return null;
		}
		Ruling.Outcome outcome = bound ? Ruling.Outcome.BOUND : Ruling.Outcome.LOST;
		Ruling.Holder holder = bound ? new Ruling.Holder(claim.key(), claim.timestamp())
				: (owner != null) ? new Ruling.Holder(owner.key(), owner.timestamp()) : null;
		return new Ruling(claim.key(), claim.value(), claim.timestamp(), outcome, holder);
	}

}
