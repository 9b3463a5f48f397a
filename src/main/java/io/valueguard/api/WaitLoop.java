package io.valueguard.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

import io.valueguard.routing.ClaimView;
import io.valueguard.routing.LookupRouter;
import io.valueguard.routing.OwnerView;
import io.valueguard.routing.StoreUnavailableException;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

/**
 * Looks up, for every synchronous write that waits, what it waits for, all together on one thread. A round reads the
 * claims of all waiting keys in one batch (this instance's share from its stores, one request per other instance),
 * then, in a second batch, who holds the values whose claims the key stage has applied, and hands each wait what
 * was read. So the reads do not grow with the number of requests waiting: when each request looked up its own two
 * entries every 10 ms, seventy-two sign-ups racing through three instances on a 2-core machine sent thousands of
 * forwarded lookups a second, and the stream threads whose ruling they waited for starved (a ruling took 20 to 30 s).
 * The next round starts {@link #POLL} after the last one ended, and no sooner than the last one took: when the
 * instances answer slowly, the rounds slow down with them instead of piling up. When a stage of this instance rings
 * the {@link #wake bell} (it applied something a caller may wait for), the next round starts sooner, though not
 * before {@link #AFTER_BELL} or four times the last round's time: the stages ring as often as they apply such records,
 * and must not keep the loop looking (with hundreds of waits a round reads hundreds of keys).
 */
final class WaitLoop implements AutoCloseable {

	private static final Log logger = LogFactory.getLog(WaitLoop.class);

	static final Duration POLL = Duration.ofMillis(10);

	/** The least pause between a round and the next when the bell rang meanwhile. */
	static final Duration AFTER_BELL = Duration.ofMillis(2);

	/** How long the thread sleeps with nothing to wait for, unless a wait arrives. */
	private static final long IDLE_NANOS = TimeUnit.SECONDS.toNanos(1);

	/**
	 * One request's wait, given the key's latest claim (null: none) and, when it asks for it, who holds a value.
	 * @param <T> the answer
	 */
	abstract static class Wait<T> {

		private final String key;

		private final CompletableFuture<@Nullable T> answer = new CompletableFuture<>();

		Wait(String key) {
			this.key = key;
		}

		/** The key whose claim the wait looks at. */
		final String key() {
			return this.key;
		}

		/** The value whose holder this wait needs to decide, given the key's claim; null when it needs none. */
		@Nullable String holderNeeded(@Nullable ClaimView claim) {
			return null;
		}

		/** The answer, if the claim and the holder (when {@link #holderNeeded} asked for one) give it; else null. */
		abstract @Nullable T decide(@Nullable ClaimView claim, @Nullable OwnerView holder);

	}

	private final LookupRouter router;

	/** The most keys one batch asks for: what another instance accepts ({@code valueguard.query.max-batch-size}). */
	private final int maxBatch;

	private final Set<Wait<?>> waits = ConcurrentHashMap.newKeySet();

	private volatile @Nullable Thread thread;

	private volatile boolean closed;

	/** The bell rang since the last round began. */
	private volatile boolean rung;

	/** Set once the instance begins to shut down: by when every wait is answered, and what runs then (once). */
	private volatile @Nullable Drain drain;

	private @Nullable String lastProblem;

	/** How long after a round the next begins, unless the bell rings: {@link #POLL}, longer in tests. */
	private final long pollNanos;

	WaitLoop(LookupRouter router, int maxBatch, Duration poll) {
		this.router = router;
		this.maxBatch = maxBatch;
		this.pollNanos = poll.toNanos();
	}

	/**
	 * The wait's answer, which completes with null when there was none within {@code patience}. No thread waits
	 * meanwhile: the loop's round or the timeout completes it. Cancelling it ends the wait at once.
	 */
	<T> CompletableFuture<@Nullable T> submit(Wait<T> wait, Duration patience) {
		// added before the removal is attached, so that an answer as quick as the timeout cannot leave it behind
		this.waits.add(wait);
		if (this.closed) {
			wait.answer.complete(null);
		}
		Drain draining = this.drain;
		long patienceNanos = (draining != null) ? Math.min(patience.toNanos(), draining.left()) : patience.toNanos();
		wait.answer.completeOnTimeout(null, Math.max(0, patienceNanos), TimeUnit.NANOSECONDS);
		// on the wait's own future, not on a stage after it: a stage completed by a cancel skips its action
		wait.answer.whenComplete((answered, failure) -> this.waits.remove(wait));
		LockSupport.unpark(started());
		return wait.answer;
	}

	/**
	 * A stage of this instance applied something a caller may be waiting for: the next round starts as soon as it
	 * may. Called on stream threads; costs a read when nothing waits.
	 */
	void wake() {
		Thread looking = this.thread;
		if (looking != null && !this.waits.isEmpty()) {
			this.rung = true;
			LockSupport.unpark(looking);
		}
	}

	private synchronized Thread started() {
		if (this.thread == null) {
			this.thread = new Thread(this::run, "valueguard-rulings");
			this.thread.setDaemon(true);
			this.thread.start();
		}
		return this.thread;
	}

	/**
	 * Answers every wait within {@code lastCall} from now, with its ruling if one comes by then and with null (202)
	 * if not, and then runs {@code drained}, at once if nothing waits. The server drains its open requests before it
	 * stops, and a wait whose client went away unseen (HTTP/1.1) would otherwise hold the shutdown for the rest of
	 * its patience, up to half a minute. Waits that arrive meanwhile wait no longer than the last call.
	 */
	void drain(Duration lastCall, Runnable drained) {
		Drain draining = new Drain(System.nanoTime() + lastCall.toNanos(), new AtomicReference<>(drained));
		this.drain = draining;
		// on time even while a round waits for a store that is not there (a rebalance, an instance going away)
		CompletableFuture.delayedExecutor(lastCall.toNanos(), TimeUnit.NANOSECONDS)
			.execute(() -> draining.end(this.waits));
		LockSupport.unpark(started());
	}

	/** Waits wait their whole patience again: the application context was started again after a stop. */
	void resume() {
		this.drain = null;
	}

	private void run() {
		while (!this.closed) {
			Drain draining = this.drain;
			if (draining != null && this.waits.isEmpty()) {
				// every wait answered before the last call is over: the shutdown goes on now (the timer ends it else)
				draining.end(this.waits);
			}
			if (this.waits.isEmpty()) {
				LockSupport.parkNanos(IDLE_NANOS);
				continue;
			}
			long started = System.nanoTime();
			// before the round: a ring during it may be for what the round has just missed
			this.rung = false;
			try {
				round();
			}
			catch (RuntimeException ex) {
				// the next round tries again; the requests' own deadlines bound how long they wait
				problem(ex);
			}
			long took = System.nanoTime() - started;
			if (!pause(Math.max(this.pollNanos, took), Math.max(AFTER_BELL.toNanos(), 4 * took))) {
				return;
			}
		}
	}

	/** Waits {@code pause} nanoseconds, or only {@code afterBell} once the bell rings; false when interrupted. */
	private boolean pause(long pause, long afterBell) {
		long from = System.nanoTime();
		while (true) {
			long waited = System.nanoTime() - from;
			long until = this.rung ? Math.min(pause, afterBell) : pause;
			if (waited >= until) {
				return true;
			}
			LockSupport.parkNanos(this, until - waited);
			if (Thread.interrupted()) {
				return false;
			}
		}
	}

	/** One look for every wait: the claims in one batch, the holders some of them need in a second. */
	void round() {
		List<Wait<?>> current = new ArrayList<>(this.waits);
		Set<String> keys = new LinkedHashSet<>();
		current.forEach((wait) -> keys.add(wait.key));
		Map<String, @Nullable ClaimView> claims;
		try {
			claims = inBatches(List.copyOf(keys), this.router::claims);
		}
		catch (StoreUnavailableException ex) {
			// a rebalance or a restore: look again next round
			return;
		}
		Map<Wait<?>, String> holdersNeeded = new HashMap<>();
		for (Wait<?> wait : current) {
			String value = wait.holderNeeded(claims.get(wait.key));
			if (value != null) {
				holdersNeeded.put(wait, value);
			}
		}
		Map<String, @Nullable OwnerView> holders = null;
		if (!holdersNeeded.isEmpty()) {
			try {
				holders = inBatches(List.copyOf(new LinkedHashSet<>(holdersNeeded.values())), this.router::ownersNow);
			}
			catch (StoreUnavailableException ex) {
				// the waits that need a holder look again next round; the others decide now
			}
		}
		for (Wait<?> wait : current) {
			String value = holdersNeeded.get(wait);
			if (value != null && holders == null) {
				continue;
			}
			answer(wait, claims.get(wait.key), (value != null) ? holders.get(value) : null);
		}
		this.lastProblem = null;
	}

	/** Looks the keys up at most {@link #maxBatch} at a time. */
	private <T> Map<String, @Nullable T> inBatches(List<String> keys,
			Function<List<String>, Map<String, @Nullable T>> lookup) {
		if (keys.size() <= this.maxBatch) {
			return lookup.apply(keys);
		}
		Map<String, @Nullable T> answers = new HashMap<>();
		for (int from = 0; from < keys.size(); from += this.maxBatch) {
			answers.putAll(lookup.apply(keys.subList(from, Math.min(keys.size(), from + this.maxBatch))));
		}
		return answers;
	}

	private static <T> void answer(Wait<T> wait, @Nullable ClaimView claim, @Nullable OwnerView holder) {
		T answer = wait.decide(claim, holder);
		if (answer != null) {
			wait.answer.complete(answer);
		}
	}

	/** Logs a failed round once, not a hundred times a second. */
	private void problem(RuntimeException ex) {
		String problem = ex.getClass().getName() + ": " + ex.getMessage();
		if (!problem.equals(this.lastProblem)) {
			logger.warn("Looking up the rulings that synchronous writes wait for failed; trying again: " + problem, ex);
			this.lastProblem = problem;
		}
	}

	/** Stops looking: every wait still open is answered with null at once (its caller gets a 202). */
	@Override
	public void close() {
		this.closed = true;
		this.waits.forEach((wait) -> wait.answer.complete(null));
		Drain draining = this.drain;
		if (draining != null) {
			draining.end(this.waits);
		}
		Thread running;
		synchronized (this) {
			running = this.thread;
		}
		if (running != null) {
			running.interrupt();
		}
	}

	/** A shutdown's last call: its deadline on {@link System#nanoTime()}, and what to run once it is over. */
	private record Drain(long deadline, AtomicReference<@Nullable Runnable> drained) {

		long left() {
			return this.deadline - System.nanoTime();
		}

		/** Answers what still waits with null, and runs {@code drained} the first time only. */
		void end(Set<Wait<?>> waits) {
			waits.forEach((wait) -> wait.answer.complete(null));
			Runnable then = this.drained.getAndSet(null);
			if (then != null) {
				then.run();
			}
		}

	}

}
