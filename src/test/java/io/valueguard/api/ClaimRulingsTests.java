package io.valueguard.api;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.valueguard.claims.ClaimCondition;
import io.valueguard.claims.ClaimPublisher;
import io.valueguard.messages.RulingBell;
import io.valueguard.routing.ClaimView;
import io.valueguard.routing.LookupRouter;
import io.valueguard.routing.OwnerView;
import io.valueguard.routing.StoreUnavailableException;
import io.valueguard.support.TestProperties;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.boot.web.server.context.WebServerApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;

/**
 * Synchronous writes wait through one loop that looks up every waiting request's entries together, against a router
 * whose stores the test sets: the claims store of the key stage and the owners store of the value stage.
 */
class ClaimRulingsTests {

	private final LookupRouter router = mock(LookupRouter.class);

	/** The key stage's claims as the router answers them. */
	private final Map<String, ClaimView> claims = new ConcurrentHashMap<>();

	/** The value stage's holders as the router answers them. */
	private final Map<String, OwnerView> owners = new ConcurrentHashMap<>();

	/** Every batch of keys the loop asked for. */
	private final List<List<String>> claimBatches = new CopyOnWriteArrayList<>();

	/** Every batch of values whose holders the loop asked for. */
	private final List<List<String>> holderBatches = new CopyOnWriteArrayList<>();

	private final AtomicInteger unavailable = new AtomicInteger();

	private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

	/** The stages' bell, which the rulings hear. */
	private final RulingBell bell = new RulingBell();

	private final ClaimRulings rulings;

	ClaimRulingsTests() {
		given(this.router.claims(anyList())).willAnswer((invocation) -> {
			List<String> keys = invocation.getArgument(0);
			this.claimBatches.add(keys);
			if (this.unavailable.getAndUpdate((left) -> Math.max(0, left - 1)) > 0) {
				throw new StoreUnavailableException("bindings", "rebalancing", Duration.ZERO);
			}
			return answers(keys, this.claims);
		});
		given(this.router.ownersNow(anyList())).willAnswer((invocation) -> {
			List<String> values = invocation.getArgument(0);
			Map<String, @Nullable OwnerView> holders = answers(values, this.owners);
			this.holderBatches.add(values);
			return holders;
		});
		this.rulings = new ClaimRulings(this.router, TestProperties.query(Map.of()), TestProperties.defaults(),
				this.bell, this.registry);
	}

	@AfterEach
	void closeLoop() {
		this.rulings.close();
	}

	@Test
	void shouldLookUpTheClaimsOfAllWaitingRequestsInOneBatch() throws Exception {
		int requests = 20;
		List<CompletableFuture<@Nullable Ruling>> answers = new ArrayList<>();
		for (int i = 0; i < requests; i++) {
			answers.add(this.rulings.ruling(receipt("key-" + i, "value-" + i, 100), Duration.ofSeconds(10)));
		}
		// nothing ruled yet: the loop keeps looking, all of them in each round
		await().until(() -> this.claimBatches.stream().anyMatch((batch) -> batch.size() == requests));
		assertThat(this.registry.get("valueguard.waiting.requests").gauge().value()).isEqualTo(requests);
		assertThat(answers).noneMatch(CompletableFuture::isDone);
		for (int i = 0; i < requests; i++) {
			this.claims.put("key-" + i, new ClaimView("key-" + i, "value-" + i, 100, true, false, false));
			this.owners.put("value-" + i, new OwnerView("value-" + i, "key-" + i, 100));
		}
		for (int i = 0; i < requests; i++) {
			Ruling ruling = answers.get(i).get(10, TimeUnit.SECONDS);
			assertThat(ruling.outcome()).isEqualTo(Ruling.Outcome.BOUND);
			assertThat(ruling.key()).isEqualTo("key-" + i);
		}
		// never one lookup per request
		then(this.router).should(never()).claim(anyString(), any());
		then(this.router).should(never()).ownerNow(anyString());
		assertThat(waits("answered")).isEqualTo(requests);
		assertThat(this.registry.get("valueguard.waiting.requests").gauge().value()).isZero();
		// each answered claim's wait, from before the rulings were written to after: so at least the batches' wait
		Timer claimTime = this.registry.get("valueguard.waits.duration").tag("kind", "claim").timer();
		assertThat(claimTime.count()).isEqualTo(requests);
		assertThat(claimTime.max(TimeUnit.MILLISECONDS)).isPositive();
		assertThat(this.registry.get("valueguard.waits.duration").tag("kind", "release").timer().count()).isZero();
	}

	@Test
	void shouldEndAWaitAtOnceWhenItsCallerNoLongerWantsTheAnswer() {
		CompletableFuture<@Nullable Ruling> abandoned = this.rulings.ruling(receipt("kim", "van", 100),
				Duration.ofSeconds(30));
		await().until(() -> this.claimBatches.stream().anyMatch((batch) -> batch.contains("kim")));
		assertThat(this.registry.get("valueguard.waiting.requests").gauge().value()).isOne();

		abandoned.cancel(false);

		// its permit back at once, not after its 30 s
		assertThat(this.registry.get("valueguard.waiting.requests").gauge().value()).isZero();
		assertThat(waits("abandoned")).isOne();
		assertThat(waits("expired")).isZero();
		// and out of the loop's reads: a later wait's round asks for that one alone
		this.rulings.ruling(receipt("lee", "vale", 100), Duration.ofSeconds(30));
		await().until(() -> this.claimBatches.get(this.claimBatches.size() - 1).contains("lee"));
		assertThat(this.claimBatches.get(this.claimBatches.size() - 1)).containsExactly("lee");
	}

	@Test
	void shouldAnswerTheOpenWaitsWithinTheLastCallWhenTheInstanceShutsDown() {
		// a wait whose client went away unseen, with 30 s left, and one whose ruling comes during the last call
		CompletableFuture<@Nullable Ruling> unanswered = this.rulings.ruling(receipt("kim", "van", 100),
				Duration.ofSeconds(30));
		CompletableFuture<@Nullable Ruling> ruled = this.rulings.ruling(receipt("lee", "vale", 100),
				Duration.ofSeconds(30));
		await().until(() -> this.claimBatches.stream().anyMatch((batch) -> batch.size() == 2));
		AtomicInteger drained = new AtomicInteger();
		long stopping = System.nanoTime();

		this.rulings.stop(drained::incrementAndGet);
		this.claims.put("lee", new ClaimView("lee", "vale", 100, true, false, false));
		this.owners.put("vale", new OwnerView("vale", "lee", 100));

		assertThat(ruled).succeedsWithin(Duration.ofSeconds(1)).extracting(Ruling::outcome).isEqualTo(Ruling.Outcome.BOUND);
		assertThat(unanswered).succeedsWithin(ClaimRulings.LAST_CALL.plusSeconds(2)).isNull();
		await().until(() -> drained.get() == 1);
		assertThat(Duration.ofNanos(System.nanoTime() - stopping)).isGreaterThanOrEqualTo(ClaimRulings.LAST_CALL)
			.isLessThan(Duration.ofSeconds(10));
		assertThat(this.rulings.isRunning()).isFalse();
		assertThat(this.registry.get("valueguard.waiting.requests").gauge().value()).isZero();
		// a write that comes during the server's own drain waits no longer than the last call did
		assertThat(this.rulings.ruling(receipt("may", "vine", 100), Duration.ofSeconds(30)))
			.succeedsWithin(Duration.ofSeconds(1))
			.isNull();
	}

	@Test
	void shouldStopAtOnceWhenNothingWaitsAndBeforeTheServerDrainsItsRequests() {
		AtomicInteger drained = new AtomicInteger();
		this.rulings.start();
		assertThat(this.rulings.isRunning()).isTrue();

		this.rulings.stop(drained::incrementAndGet);

		await().atMost(Duration.ofSeconds(1)).until(() -> drained.get() == 1);
		// Spring stops the higher phase first
		assertThat(this.rulings.getPhase()).isGreaterThan(WebServerApplicationContext.GRACEFUL_SHUTDOWN_PHASE);
		// started again (a context stopped and started): waits wait their whole patience again
		this.rulings.start();
		CompletableFuture<@Nullable Ruling> waiting = this.rulings.ruling(receipt("kim", "van", 100),
				Duration.ofSeconds(30));
		await().until(() -> this.claimBatches.stream().anyMatch((batch) -> batch.contains("kim")));
		assertThat(waiting).isNotDone();
	}

	@Test
	void shouldTimeOnlyTheWaitsThatWereAnswered() {
		Ruling none = this.rulings.ruling(receipt("kim", "van", 100), Duration.ofMillis(50)).join();

		assertThat(none).isNull();
		assertThat(waits("expired")).isOne();
		assertThat(this.registry.get("valueguard.waits.duration").tag("kind", "claim").timer().count()).isZero();
	}

	@Test
	void shouldAskNoInstanceForMoreKeysThanItTakesInOneBatch() throws Exception {
		try (ClaimRulings limited = new ClaimRulings(this.router, TestProperties.query(Map.of("max-batch-size", "8")),
				TestProperties.defaults(), new RulingBell(), new SimpleMeterRegistry())) {
			List<CompletableFuture<@Nullable Release>> answers = new ArrayList<>();
			for (int i = 0; i < 20; i++) {
				answers.add(limited.release(receipt("key-" + i, null, 100), Duration.ofSeconds(10)));
			}
			await().until(() -> this.claimBatches.stream().mapToInt(List::size).sum() >= 20);
			for (int i = 0; i < 20; i++) {
				this.claims.put("key-" + i, new ClaimView("key-" + i, null, 100, false, false, false));
			}
			for (CompletableFuture<@Nullable Release> answer : answers) {
				assertThat(answer.get(10, TimeUnit.SECONDS)).isNotNull();
			}
		}
		assertThat(this.claimBatches).allSatisfy((batch) -> assertThat(batch).hasSizeLessThanOrEqualTo(8));
	}

	@Test
	void shouldWaitUntilTheKeyStageHasAppliedThisClaim() {
		// an earlier claim of the key: not this one's ruling
		this.claims.put("alice", new ClaimView("alice", "phone", 50, true, false, false));
		this.owners.put("phone", new OwnerView("phone", "alice", 50));

		assertThat(this.rulings.ruling(receipt("alice", "phone", 100), Duration.ofMillis(300)).join()).isNull();
		assertThat(waits("expired")).isOne();
		assertThat(waits("answered")).isZero();
	}

	@Test
	void shouldLookAtOnceWhenAStageRingsTheBellNotAtTheNextPoll() throws Exception {
		// polling once an hour: within the test only the bell can bring the ruling
		try (ClaimRulings hourly = new ClaimRulings(this.router, TestProperties.query(Map.of()),
				TestProperties.defaults(), this.bell, new SimpleMeterRegistry(), Duration.ofHours(1))) {
			this.claims.put("alice", new ClaimView("alice", "phone", 100, true, false, false));
			CompletableFuture<@Nullable Ruling> ruling = hourly.ruling(receipt("alice", "phone", 100),
					Duration.ofMinutes(1));
			// the first round found the key stage's claim and no holder yet: the value stage has not ruled
			await().until(() -> this.holderBatches.size() == 1);
			this.owners.put("phone", new OwnerView("phone", "alice", 100));

			this.bell.ring();

			assertThat(ruling.get(10, TimeUnit.SECONDS).outcome()).isEqualTo(Ruling.Outcome.BOUND);
			assertThat(this.holderBatches).hasSize(2);
		}
	}

	@Test
	void shouldNameTheHolderOfAClaimThatLost() {
		this.claims.put("bob", new ClaimView("bob", "phone", 100, false, false, false));
		this.owners.put("phone", new OwnerView("phone", "alice", 200));

		Ruling ruling = this.rulings.ruling(receipt("bob", "phone", 100), Duration.ofSeconds(5)).join();

		assertThat(ruling.outcome()).isEqualTo(Ruling.Outcome.LOST);
		assertThat(ruling.owner()).isEqualTo(new Ruling.Holder("alice", 200));
	}

	@Test
	void shouldAnswerALostClaimOnlyOnceTheKeyKnowsItLost() {
		// latest-wins: a greater claim holds the value, and the eviction is on its way to bob's key stage
		this.claims.put("bob", new ClaimView("bob", "phone", 100, true, false, false));
		this.owners.put("phone", new OwnerView("phone", "alice", 200));
		CompletableFuture<@Nullable Ruling> ruling = this.rulings.ruling(receipt("bob", "phone", 100),
				Duration.ofSeconds(5));
		await().until(() -> this.holderBatches.size() >= 2);
		assertThat(ruling).isNotDone();

		// a caller told LOST who reads bob's binding then finds none
		this.claims.put("bob", new ClaimView("bob", "phone", 100, false, false, false));

		assertThat(ruling).succeedsWithin(Duration.ofSeconds(5))
			.satisfies((lost) -> assertThat(lost.outcome()).isEqualTo(Ruling.Outcome.LOST))
			.satisfies((lost) -> assertThat(lost.owner()).isEqualTo(new Ruling.Holder("alice", 200)));
	}

	@Test
	void shouldAnswerAFirstWinsGrantOnceTheValueStageHasMadeItBeforeItReachesTheKey() {
		try (ClaimRulings firstWins = firstWins()) {
			// the key stage has applied the claim; the value stage has not ruled yet, and bob holds the number
			this.claims.put("alice", new ClaimView("alice", "phone", 100, false, true, false));
			this.owners.put("phone", new OwnerView("phone", "bob", 50));
			CompletableFuture<@Nullable Ruling> ruling = firstWins.ruling(receipt("alice", "phone", 100),
					Duration.ofSeconds(5));
			await().until(() -> this.holderBatches.size() >= 2);
			// another holder says nothing of a claim not ruled on yet: bob may let go before it is
			assertThat(ruling).isNotDone();

			// bob let go, and the value stage granted alice's claim; the grant is on its way back to her key
			this.owners.put("phone", new OwnerView("phone", "alice", 100));

			// binding lookups see a pending claim that its value's holder shows granted as bound (BindingLookups)
			assertThat(ruling).succeedsWithin(Duration.ofSeconds(5))
				.satisfies((bound) -> assertThat(bound.outcome()).isEqualTo(Ruling.Outcome.BOUND))
				.satisfies((bound) -> assertThat(bound.owner()).isEqualTo(new Ruling.Holder("alice", 100)));
		}
	}

	@Test
	void shouldNotTakeAFirstWinsHolderOfAnEarlierClaimOfTheSameKeyForThisClaimsGrant() {
		try (ClaimRulings firstWins = firstWins()) {
			// alice held the number with her claim at 100, and claims it again at 200: that claim awaits its ruling
			this.claims.put("alice", new ClaimView("alice", "phone", 200, false, true, false));
			this.owners.put("phone", new OwnerView("phone", "alice", 100));
			CompletableFuture<@Nullable Ruling> ruling = firstWins.ruling(receipt("alice", "phone", 200),
					Duration.ofSeconds(5));
			await().until(() -> this.holderBatches.size() >= 2);
			assertThat(ruling).isNotDone();

			// the grant reached the key stage
			this.claims.put("alice", new ClaimView("alice", "phone", 200, true, false, false));
			this.owners.put("phone", new OwnerView("phone", "alice", 200));

			assertThat(ruling).succeedsWithin(Duration.ofSeconds(5))
				.satisfies((bound) -> assertThat(bound.outcome()).isEqualTo(Ruling.Outcome.BOUND))
				.satisfies((bound) -> assertThat(bound.timestamp()).isEqualTo(200));
		}
	}

	@Test
	void shouldNameTheHolderOfAFirstWinsClaimThatWasRefused() {
		try (ClaimRulings firstWins = firstWins()) {
			this.claims.put("bob", new ClaimView("bob", "phone", 300, false, false, false));
			this.owners.put("phone", new OwnerView("phone", "alice", 100));

			Ruling ruling = firstWins.ruling(receipt("bob", "phone", 300), Duration.ofSeconds(5)).join();

			assertThat(ruling.outcome()).isEqualTo(Ruling.Outcome.LOST);
			assertThat(ruling.owner()).isEqualTo(new Ruling.Holder("alice", 100));
		}
	}

	@Test
	void shouldLookAgainAfterAStoreWasUnavailable() {
		this.unavailable.set(3);
		this.claims.put("alice", new ClaimView("alice", null, 100, false, false, false));

		Release release = this.rulings.release(receipt("alice", null, 100), Duration.ofSeconds(5)).join();

		assertThat(release).isEqualTo(Release.of("alice", 100));
		assertThat(this.claimBatches).hasSizeGreaterThan(3);
	}

	@Test
	void shouldAnswerAConditionalReleaseOnceTheKeyStageHasTakenTheClaimItNames() throws Exception {
		ClaimCondition condition = new ClaimCondition("phone", 50L);
		this.claims.put("alice", new ClaimView("alice", "phone", 50, true, false, false));
		CompletableFuture<@Nullable Release> release = this.rulings.conditionalRelease(receipt("alice", null, 100),
				condition, Duration.ofSeconds(10));
		// the claim it names is still the key's: not applied yet
		await().until(() -> this.claimBatches.size() >= 3);
		assertThat(release).isNotDone();

		this.claims.put("alice", new ClaimView("alice", null, 100, false, false, false));

		assertThat(release.get(10, TimeUnit.SECONDS)).isEqualTo(Release.of("alice", 100));
	}

	/**
	 * The key claimed again before the release arrived (the same value too, later): the key stage left that claim
	 * alone, and the answer says nothing was released.
	 */
	@Test
	void shouldSayAConditionalReleaseFoundItsClaimGone() {
		ClaimCondition condition = new ClaimCondition("phone", 50L);
		this.claims.put("alice", new ClaimView("alice", "phone", 80, true, false, false));

		Release release = this.rulings.conditionalRelease(receipt("alice", null, 100), condition,
				Duration.ofSeconds(5)).join();

		assertThat(release.released()).isFalse();
		assertThat(release.timestamp()).isEqualTo(80);
		// a release at an earlier time than this one's is another's, before it: this one found nothing to take
		this.claims.put("bob", new ClaimView("bob", null, 70, false, false, false));
		assertThat(this.rulings.conditionalRelease(receipt("bob", null, 100), new ClaimCondition("seat", 60L),
				Duration.ofSeconds(5)).join().released()).isFalse();
	}

	@Test
	void shouldRuleOnAConditionalClaimOnceTheKeyStageHasAppliedIt() throws Exception {
		ClaimCondition condition = new ClaimCondition("phone-old", 50L);
		this.claims.put("alice", new ClaimView("alice", "phone-old", 50, true, false, false));
		CompletableFuture<@Nullable Object> move = this.rulings.conditionalClaim(receipt("alice", "phone-new", 100),
				condition, Duration.ofSeconds(10));
		// the claim it moves from is still the key's: not applied yet
		await().until(() -> this.claimBatches.size() >= 3);
		assertThat(move).isNotDone();

		this.claims.put("alice", new ClaimView("alice", "phone-new", 100, true, false, false));
		this.owners.put("phone-new", new OwnerView("phone-new", "alice", 100));

		assertThat(move.get(10, TimeUnit.SECONDS)).isEqualTo(new Ruling("alice", "phone-new", 100,
				Ruling.Outcome.BOUND, new Ruling.Holder("alice", 100)));
	}

	/** The key moved elsewhere before the move arrived: the key stage passed it over, and the answer says so. */
	@Test
	void shouldSayAConditionalClaimFoundItsClaimGone() {
		this.claims.put("alice", new ClaimView("alice", "phone-other", 80, true, false, false));

		Object answer = this.rulings.conditionalClaim(receipt("alice", "phone-new", 100),
				new ClaimCondition("phone-old", 50L), Duration.ofSeconds(5)).join();

		assertThat(answer).isInstanceOf(ClaimRulings.MoveNotMade.class);
	}

	/**
	 * Another claim at or after this one's time may have come after this one was applied, or before it was passed
	 * over: no ruling can be told, so the wait ends without one, as a claim's whose key moved on at once.
	 */
	@Test
	void shouldNotGuessWhetherAConditionalClaimWasAppliedBeforeTheKeyMovedOn() {
		this.claims.put("alice", new ClaimView("alice", "phone-other", 150, true, false, false));

		Object answer = this.rulings.conditionalClaim(receipt("alice", "phone-new", 100),
				new ClaimCondition("phone-old", 50L), Duration.ofMillis(300)).join();

		assertThat(answer).isNull();
	}

	@Test
	void shouldSeeAnErasureThroughToItsEnd() throws Exception {
		CompletableFuture<@Nullable Release> erasure = this.rulings.erasure(receipt("alice", null, 100),
				Duration.ofSeconds(10));
		// no entry yet says nothing: the erasure has not reached the key stage
		await().until(() -> this.claimBatches.size() >= 3);
		this.claims.put("alice", new ClaimView("alice", null, 100, false, false, true));
		int seen = this.claimBatches.size();
		await().until(() -> this.claimBatches.size() >= seen + 2);
		assertThat(erasure).isNotDone();
		this.claims.remove("alice");

		assertThat(erasure.get(10, TimeUnit.SECONDS)).isEqualTo(new Release("alice", 100, "ERASED"));
	}

	@Test
	void shouldAnswerEveryOpenWaitAtOnceWhenClosed() {
		CompletableFuture<@Nullable Ruling> open = this.rulings.ruling(receipt("kim", "van", 100),
				Duration.ofSeconds(30));
		await().until(() -> !this.claimBatches.isEmpty());

		this.rulings.close();

		assertThat(open).succeedsWithin(Duration.ofSeconds(1)).isNull();
		assertThat(waits("expired")).isOne();
		assertThat(this.registry.get("valueguard.waiting.requests").gauge().value()).isZero();
	}

	@Test
	void shouldStopLookingOnceNobodyWaits() throws Exception {
		assertThat(this.rulings.release(receipt("alice", null, 100), Duration.ofMillis(100)).join()).isNull();
		Thread.sleep(50);
		int rounds = this.claimBatches.size();
		Thread.sleep(200);
		assertThat(this.claimBatches).hasSize(rounds);
	}

	private ClaimRulings firstWins() {
		return new ClaimRulings(this.router, TestProperties.query(Map.of()),
				TestProperties.of(Map.of("valueguard.policy", "first-wins")), this.bell, new SimpleMeterRegistry());
	}

	private double waits(String outcome) {
		return this.registry.get("valueguard.waits").tag("outcome", outcome).counter().count();
	}

	private static ClaimPublisher.Receipt receipt(String key, @Nullable String value, long timestamp) {
		return new ClaimPublisher.Receipt(key, value, "valueguard.claims", 0, 0, timestamp);
	}

	private static <T> Map<String, @Nullable T> answers(List<String> keys, Map<String, T> store) {
		Map<String, @Nullable T> answers = new HashMap<>();
		keys.forEach((key) -> answers.put(key, store.get(key)));
		return answers;
	}

}
