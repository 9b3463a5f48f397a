package io.valueguard.api;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import io.valueguard.claims.ClaimCondition;
import io.valueguard.claims.ClaimPublisher;
import io.valueguard.claims.ClaimRejection;
import io.valueguard.config.QueryProperties;
import io.valueguard.routing.Answer;
import io.valueguard.routing.BindingLookups;
import io.valueguard.routing.BindingView;
import io.valueguard.routing.ClaimView;
import io.valueguard.routing.Listings;
import io.valueguard.routing.Lookup;
import io.valueguard.routing.LookupRouter;
import io.valueguard.routing.OwnerView;
import io.valueguard.routing.Page;
import io.valueguard.routing.StoreUnavailableException;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.http.MediaType;
import org.springframework.mock.web.MockAsyncContext;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.isNull;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.BDDMockito.willThrow;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.asyncDispatch;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.delete;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.request;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** The REST contract, problem bodies included, with the stores and Kafka mocked away. */
// no Kafka at all in a slice test: keep the local broker from starting
@WebMvcTest(controllers = { BindingsController.class, OwnersController.class },
		properties = "valueguard.embedded-kafka.enabled=false")
@Import(ConditionalReleases.class)
class BindingsControllerTests {

	@TestConfiguration
	@EnableConfigurationProperties(QueryProperties.class)
	static class Settings {

	}

	@Autowired
	private MockMvc mvc;

	@MockitoBean
	private LookupRouter router;

	@MockitoBean
	private BindingLookups bindings;

	@MockitoBean
	private Listings listings;

	@MockitoBean
	private ClaimPublisher publisher;

	@MockitoBean
	private ClaimRulings rulings;

	@Test
	void shouldAcceptClaimWithReceiptAndLocation() throws Exception {
		given(this.publisher.publish("alice", "+1-555-0100", null))
			.willReturn(new ClaimPublisher.Receipt("alice", "+1-555-0100", "valueguard.claims", 2, 41, 1000));

		this.mvc.perform(put("/api/bindings/alice").contentType(MediaType.TEXT_PLAIN).content("+1-555-0100"))
			.andExpect(status().isAccepted())
			.andExpect(header().string("Location", "/api/bindings/alice"))
			.andExpect(jsonPath("$.partition").value(2))
			.andExpect(jsonPath("$.offset").value(41));
	}

	@Test
	void shouldAnswerBindingAsJsonSayingWhoServedIt() throws Exception {
		given(this.bindings.binding("alice", null))
			.willReturn(new Answer<>(new BindingView("alice", "phone", 1000), "host-a:8080", null));

		this.mvc.perform(get("/api/bindings/alice"))
			.andExpect(status().isOk())
			.andExpect(header().string("X-ValueGuard-Served-By", "host-a:8080"))
			.andExpect(header().doesNotExist("X-ValueGuard-Stale"))
			.andExpect(jsonPath("$.key").value("alice"))
			.andExpect(jsonPath("$.value").value("phone"))
			.andExpect(jsonPath("$.timestamp").value(1000));
	}

	@Test
	void shouldSayHowStaleWhenStandbyAnswers() throws Exception {
		given(this.router.owner("phone", 10L))
			.willReturn(new Answer<>(new OwnerView("phone", "alice", 1000), "host-b:8080", 3L));

		this.mvc.perform(get("/api/owners/phone").param("maxLag", "10"))
			.andExpect(status().isOk())
			.andExpect(header().string("X-ValueGuard-Served-By", "host-b:8080"))
			.andExpect(header().string("X-ValueGuard-Stale", "true"))
			.andExpect(header().string("X-ValueGuard-Offset-Lag", "3"))
			.andExpect(jsonPath("$.key").value("alice"));
	}

	@Test
	void shouldTreatAForwardedMarkerFromAClientAsAnOrdinaryLookup() throws Exception {
		// instances ask each other under /internal only: the marker of older builds earns a client nothing
		given(this.bindings.binding("alice", null))
			.willReturn(new Answer<>(new BindingView("alice", "phone", 1000), "host-c:8080", null));

		this.mvc.perform(get("/api/bindings/alice").header("X-ValueGuard-Forwarded", "host-a:8080"))
			.andExpect(status().isOk())
			.andExpect(header().string("X-ValueGuard-Served-By", "host-c:8080"));
	}

	@Test
	void shouldAnswer400ProblemWhenParametersAreOutOfRange() throws Exception {
		this.mvc.perform(get("/api/bindings/alice").param("maxLag", "-1"))
			.andExpect(status().isBadRequest())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/invalid-request"));
		this.mvc.perform(get("/api/bindings").param("limit", "0"))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.detail").value("limit must be between 1 and 1000, not 0"));
		this.mvc.perform(get("/api/bindings/alice").param("maxLag", "lots"))
			.andExpect(status().isBadRequest())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/invalid-request"))
			.andExpect(jsonPath("$.detail").value("maxLag must be a whole number, not 'lots'"));
		this.mvc.perform(get("/api/bindings").param("limit", "abc"))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.detail").value("limit must be a whole number, not 'abc'"));
		this.mvc.perform(delete("/api/bindings/alice").param("erase", "maybe"))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/invalid-request"))
			.andExpect(jsonPath("$.detail").value("erase must be true or false, not 'maybe'"));
	}

	@Test
	void shouldAnswer400ProblemWhenABatchLookupIsNotAnArrayOfStrings() throws Exception {
		for (String body : new String[] { "{\"a\":1}", "[", "not json" }) {
			this.mvc.perform(post("/api/bindings/lookup").contentType(MediaType.APPLICATION_JSON).content(body))
				.andExpect(status().isBadRequest())
				.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
				.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/invalid-request"))
				.andExpect(jsonPath("$.detail").value(org.hamcrest.Matchers.startsWith(
						"The request body is not what this request takes (a JSON array of strings")));
		}
	}

	@Test
	void shouldPageBindings() throws Exception {
		given(this.listings.listing(Lookup.BINDINGS, "alice", 2)).willReturn(new Listings.Listing<>(new Page<>(
				java.util.List.of(new BindingView("bob", "v1", 1), new BindingView("carol", "v2", 2)), "carol"),
				java.util.List.of("host-a:8080", "host-b:8080")));

		this.mvc.perform(get("/api/bindings").param("after", "alice").param("limit", "2"))
			.andExpect(status().isOk())
			.andExpect(header().string("X-ValueGuard-Served-By", "host-a:8080, host-b:8080"))
			.andExpect(jsonPath("$.items[0].key").value("bob"))
			.andExpect(jsonPath("$.items[1].key").value("carol"))
			.andExpect(jsonPath("$.next").value("carol"));
	}

	@Test
	void shouldNameTheAuthenticatedCallerOnEveryWrite() throws Exception {
		ClaimPublisher.Receipt claimed = new ClaimPublisher.Receipt("alice", "phone", "valueguard.claims", 3, 0, 1);
		ClaimPublisher.Receipt released = new ClaimPublisher.Receipt("alice", null, "valueguard.claims", 3, 1, 2);
		ClaimPublisher.Receipt erased = new ClaimPublisher.Receipt("bob", null, "valueguard.claims", 1, 0, 3);
		given(this.publisher.publish("alice", "phone", "support-desk")).willReturn(claimed);
		given(this.publisher.publish("alice", null, "support-desk")).willReturn(released);
		given(this.publisher.erase("bob", "dpo", false)).willReturn(erased);

		this.mvc.perform(put("/api/bindings/alice").principal(() -> "support-desk")
			.contentType(MediaType.TEXT_PLAIN)
			.content("phone")).andExpect(status().isAccepted()).andExpect(jsonPath("$.offset").value(0));
		this.mvc.perform(delete("/api/bindings").param("key", "alice").principal(() -> "support-desk"))
			.andExpect(status().isAccepted())
			.andExpect(jsonPath("$.offset").value(1));
		this.mvc.perform(delete("/api/bindings/bob").param("erase", "true").principal(() -> "dpo"))
			.andExpect(status().isAccepted())
			.andExpect(jsonPath("$.partition").value(1));
	}

	@Test
	void shouldAnswer400ProblemWhenClaimIsInvalid() throws Exception {
		given(this.publisher.publish(eq("alice"), anyString(), isNull()))
			.willThrow(new ClaimPublisher.InvalidClaimException(ClaimRejection.VALUE_TOO_LONG));

		this.mvc.perform(put("/api/bindings/alice").contentType(MediaType.TEXT_PLAIN).content("x".repeat(2000)))
			.andExpect(status().isBadRequest())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.status").value(400))
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/invalid-claim"))
			.andExpect(jsonPath("$.reason").value("VALUE_TOO_LONG"))
			.andExpect(jsonPath("$.instance").value("/api/bindings/alice"));
	}

	@Test
	void shouldAnswer404ProblemWhenNothingIsBound() throws Exception {
		given(this.router.owner("phone", null)).willReturn(new Answer<>(null, "host-b:8080", null));

		this.mvc.perform(get("/api/owners/phone"))
			.andExpect(status().isNotFound())
			.andExpect(header().string("X-ValueGuard-Served-By", "host-b:8080"))
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.title").value("Not found"))
			.andExpect(jsonPath("$.detail").value("No owner for value 'phone'"));
	}

	@Test
	void shouldAnswer503WithRetryAfterWhenStoreIsUnavailable() throws Exception {
		given(this.bindings.binding(anyString(), isNull())).willThrow(
				new StoreUnavailableException("bindings", "rebalancing", java.time.Duration.ofSeconds(5)));

		this.mvc.perform(get("/api/bindings/alice"))
			.andExpect(status().isServiceUnavailable())
			.andExpect(header().string("Retry-After", "2"))
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/store-unavailable"));
	}

	@Test
	void shouldAnswer415ProblemWhenBodyIsNotText() throws Exception {
		this.mvc.perform(put("/api/bindings/alice").contentType(MediaType.APPLICATION_JSON).content("{}"))
			.andExpect(status().isUnsupportedMediaType())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON));
	}

	@Test
	void shouldAnswerTheRulingWhenAskedToWaitWithoutHoldingTheRequestThread() throws Exception {
		CompletableFuture<@Nullable Ruling> ruling = new CompletableFuture<>();
		MvcResult waiting = waitingClaim("5s", ruling);
		// the handler has returned, and the thread with it: the answer comes when the ruling does
		assertThatIllegalStateException().as("no answer yet").isThrownBy(() -> waiting.getAsyncResult(0));
		ruling.complete(new Ruling("bob", "phone", 2000, Ruling.Outcome.LOST, new Ruling.Holder("alice", 3000)));

		this.mvc.perform(asyncDispatch(waiting))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.outcome").value("LOST"))
			.andExpect(jsonPath("$.owner.key").value("alice"))
			.andExpect(jsonPath("$.owner.timestamp").value(3000));
	}

	@Test
	void shouldStopWaitingWhenTheRequestEndsBeforeItsRuling() throws Exception {
		CompletableFuture<@Nullable Ruling> ruling = new CompletableFuture<>();
		MvcResult waiting = waitingClaim("30s", ruling);
		// what the container does when the client goes away (HTTP/2 resets the stream): an error, then the end
		MockAsyncContext async = (MockAsyncContext) waiting.getRequest().getAsyncContext();
		AsyncEvent gone = new AsyncEvent(async, new IOException("Connection reset by peer"));
		for (AsyncListener listener : async.getListeners()) {
			listener.onError(gone);
		}
		for (AsyncListener listener : async.getListeners()) {
			listener.onComplete(gone);
		}
		// the wait ends now, not after 30 s for nobody
		assertThat(ruling).isCancelled();
	}

	@Test
	void shouldAcceptAsWithoutWaitWhenNoRulingCame() throws Exception {
		CompletableFuture<@Nullable Ruling> none = new CompletableFuture<>();
		MvcResult waited = waitingClaim("200ms", none);
		none.complete(null);
		this.mvc.perform(asyncDispatch(waited))
			.andExpect(status().isAccepted())
			.andExpect(header().string("Location", "/api/bindings/bob"))
			.andExpect(jsonPath("$.offset").value(7));
		// a request that ended with its answer cancels nothing
		assertThat(none).isCompletedWithValue(null);
	}

	@Test
	void shouldAnswerAtOnceWhenTheWaitWasRefused() throws Exception {
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("bob", "phone", "valueguard.claims", 1, 7, 2000);
		given(this.publisher.publishWaitedFor("bob", "phone", null)).willReturn(receipt);
		// as many requests wait already as may: the answer is known before the handler returns
		given(this.rulings.ruling(receipt, Duration.ofSeconds(5))).willReturn(CompletableFuture.completedFuture(null));

		this.mvc.perform(put("/api/bindings/bob").param("wait", "5s").contentType(MediaType.TEXT_PLAIN).content("phone"))
			.andExpect(request().asyncNotStarted())
			.andExpect(status().isAccepted())
			.andExpect(header().string("Location", "/api/bindings/bob"));
	}

	@Test
	void shouldAnswerAWaitedReleaseOnceItHasTakenEffect() throws Exception {
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("bob", null, "valueguard.claims", 1, 8, 2000);
		// marked as waited for, so that the key stage rings the wait loop once it has applied it
		given(this.publisher.publishWaitedFor("bob", null, null)).willReturn(receipt);
		CompletableFuture<@Nullable Release> release = new CompletableFuture<>();
		given(this.rulings.release(receipt, Duration.ofSeconds(2))).willReturn(release);

		MvcResult waited = this.mvc.perform(delete("/api/bindings/bob").param("wait", "2s"))
			.andExpect(request().asyncStarted())
			.andReturn();
		release.complete(Release.of("bob", 2000));
		this.mvc.perform(asyncDispatch(waited)).andExpect(status().isOk()).andExpect(jsonPath("$.key").value("bob"));
	}

	@Test
	void shouldAnswerAWaitedErasureOnceBothStagesHaveErasedTheName() throws Exception {
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("bob", null, "valueguard.claims", 1, 9, 3000);
		// marked as waited for, so that each stage commits its part of the erasure as soon as it has done it
		given(this.publisher.erase("bob", null, true)).willReturn(receipt);
		CompletableFuture<@Nullable Release> erasure = new CompletableFuture<>();
		given(this.rulings.erasure(receipt, Duration.ofSeconds(30))).willReturn(erasure);

		MvcResult waited = this.mvc.perform(delete("/api/bindings/bob").param("erase", "true").param("wait", "30s"))
			.andExpect(request().asyncStarted())
			.andReturn();
		erasure.complete(new Release("bob", 3000, "ERASED"));
		this.mvc.perform(asyncDispatch(waited))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.outcome").value("ERASED"));
	}

	@Test
	void shouldReleaseIfTheKeyStillClaimsTheValueNamingTheClaimItHasNow() throws Exception {
		given(this.bindings.claimNow("device-7"))
			.willReturn(new Answer<>(new ClaimView("device-7", "user-alice", 1500, true, false, false), "host-a:8080", null));
		ClaimCondition condition = new ClaimCondition("user-alice", 1500L);
		given(this.publisher.releaseIf("device-7", condition, null, false))
			.willReturn(new ClaimPublisher.Receipt("device-7", null, "valueguard.claims", 4, 12, 2000));

		this.mvc.perform(delete("/api/bindings/device-7").param("value", "user-alice"))
			.andExpect(status().isAccepted())
			.andExpect(jsonPath("$.offset").value(12));
	}

	@Test
	void shouldAnswer409AndSendNothingWhenTheKeyDoesNotClaimTheValue() throws Exception {
		given(this.bindings.claimNow("device-7"))
			.willReturn(new Answer<>(new ClaimView("device-7", "user-bob", 1500, true, false, false), "host-a:8080", null));
		given(this.bindings.claimNow("device-9")).willReturn(new Answer<>(null, "host-a:8080", null));

		this.mvc.perform(delete("/api/bindings/device-7").param("value", "user-alice").param("wait", "5s"))
			.andExpect(status().isConflict())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/condition-not-met"))
			.andExpect(jsonPath("$.detail").value("Key 'device-7' does not claim 'user-alice': nothing was released"));
		this.mvc.perform(delete("/api/bindings").param("key", "device-9").param("value", "user-alice"))
			.andExpect(status().isConflict());
		// neither a value nobody could claim, nor an erasure, takes a condition
		willThrow(new ClaimPublisher.InvalidClaimException(ClaimRejection.EMPTY_VALUE)).given(this.publisher)
			.validate("device-7", "");
		this.mvc.perform(delete("/api/bindings/device-7").param("value", ""))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.reason").value("EMPTY_VALUE"));
		this.mvc.perform(delete("/api/bindings/device-7").param("value", "user-alice").param("erase", "true"))
			.andExpect(status().isBadRequest());
		then(this.publisher).should(never()).releaseIf(any(), any(), any(), anyBoolean());
	}

	@Test
	void shouldAnswer409WhenTheKeyStageFoundTheClaimGoneBeforeTheWaitedRelease() throws Exception {
		given(this.bindings.claimNow("device-7"))
			.willReturn(new Answer<>(new ClaimView("device-7", "user-alice", 1500, true, false, false), "host-a:8080", null));
		ClaimCondition condition = new ClaimCondition("user-alice", 1500L);
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("device-7", null, "valueguard.claims", 4, 12, 2000);
		given(this.publisher.releaseIf("device-7", condition, null, true)).willReturn(receipt);
		CompletableFuture<@Nullable Release> release = new CompletableFuture<>();
		given(this.rulings.conditionalRelease(receipt, condition, Duration.ofSeconds(5))).willReturn(release);

		MvcResult waited = this.mvc.perform(delete("/api/bindings/device-7").param("value", "user-alice")
			.param("wait", "5s")).andExpect(request().asyncStarted()).andReturn();
		release.complete(new Release("device-7", 1800, Release.NOT_RELEASED));

		this.mvc.perform(asyncDispatch(waited))
			.andExpect(status().isConflict())
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/condition-not-met"));
	}

	@Test
	void shouldMoveFromTheValueTheKeyStillClaimsNamingTheClaimItHasNow() throws Exception {
		given(this.bindings.claimNow("account-1"))
			.willReturn(new Answer<>(new ClaimView("account-1", "+4912345", 1500, true, false, false), "host-a:8080",
					null));
		ClaimCondition condition = new ClaimCondition("+4912345", 1500L);
		given(this.publisher.claimIf("account-1", "+4955555", condition, null, false))
			.willReturn(new ClaimPublisher.Receipt("account-1", "+4955555", "valueguard.claims", 4, 13, 2000));

		this.mvc.perform(put("/api/bindings/account-1").param("from", "+4912345")
			.contentType(MediaType.TEXT_PLAIN)
			.content("+4955555")).andExpect(status().isAccepted()).andExpect(jsonPath("$.offset").value(13));
	}

	@Test
	void shouldAnswer409AndClaimNothingWhenTheKeyDoesNotClaimTheValueToMoveFrom() throws Exception {
		given(this.bindings.claimNow("account-1"))
			.willReturn(new Answer<>(new ClaimView("account-1", "+4977777", 1500, true, false, false), "host-a:8080",
					null));
		given(this.bindings.claimNow("account/9")).willReturn(new Answer<>(null, "host-a:8080", null));

		this.mvc.perform(put("/api/bindings/account-1").param("from", "+4912345").param("wait", "5s")
			.contentType(MediaType.TEXT_PLAIN)
			.content("+4955555"))
			.andExpect(status().isConflict())
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/condition-not-met"))
			.andExpect(jsonPath("$.detail").value("Key 'account-1' does not claim '+4912345': nothing was claimed"));
		this.mvc.perform(put("/api/bindings").param("key", "account/9").param("from", "+4912345")
			.contentType(MediaType.TEXT_PLAIN)
			.content("+4955555")).andExpect(status().isConflict());
		// a value to move from that nobody could claim
		willThrow(new ClaimPublisher.InvalidClaimException(ClaimRejection.EMPTY_VALUE)).given(this.publisher)
			.validate("account-1", "");
		this.mvc.perform(put("/api/bindings/account-1").param("from", "")
			.contentType(MediaType.TEXT_PLAIN)
			.content("+4955555")).andExpect(status().isBadRequest()).andExpect(jsonPath("$.reason").value("EMPTY_VALUE"));
		then(this.publisher).should(never()).claimIf(any(), any(), any(), any(), anyBoolean());
		then(this.publisher).should(never()).publish(any(), any(), any());
	}

	@Test
	void shouldAnswerAWaitedMoveWithItsRulingOr409WhenTheKeyStagePassedItOver() throws Exception {
		given(this.bindings.claimNow("account-1"))
			.willReturn(new Answer<>(new ClaimView("account-1", "+4912345", 1500, true, false, false), "host-a:8080",
					null));
		ClaimCondition condition = new ClaimCondition("+4912345", 1500L);
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("account-1", "+4955555", "valueguard.claims", 4,
				13, 2000);
		given(this.publisher.claimIf("account-1", "+4955555", condition, null, true)).willReturn(receipt);
		CompletableFuture<@Nullable Object> passedOver = new CompletableFuture<>();
		given(this.rulings.conditionalClaim(receipt, condition, Duration.ofSeconds(5))).willReturn(passedOver,
				CompletableFuture.completedFuture(new Ruling("account-1", "+4955555", 2000, Ruling.Outcome.BOUND,
						new Ruling.Holder("account-1", 2000))));

		MvcResult waited = this.mvc.perform(put("/api/bindings/account-1").param("from", "+4912345")
			.param("wait", "5s")
			.contentType(MediaType.TEXT_PLAIN)
			.content("+4955555")).andExpect(request().asyncStarted()).andReturn();
		passedOver.complete(new ClaimRulings.MoveNotMade());
		this.mvc.perform(asyncDispatch(waited))
			.andExpect(status().isConflict())
			.andExpect(jsonPath("$.detail")
				.value("Key 'account-1' no longer had the claim when this claim arrived: nothing was claimed"));

		this.mvc.perform(put("/api/bindings/account-1").param("from", "+4912345")
			.param("wait", "5s")
			.contentType(MediaType.TEXT_PLAIN)
			.content("+4955555")).andExpect(status().isOk()).andExpect(jsonPath("$.outcome").value("BOUND"));
	}

	@Test
	void shouldFreeAValueByReleasingExactlyTheClaimThatHoldsIt() throws Exception {
		given(this.router.ownerNow("+1-555-0100"))
			.willReturn(new Answer<>(new OwnerView("+1-555-0100", "alice", 1500), "host-b:8080", null));
		ClaimCondition condition = new ClaimCondition("+1-555-0100", 1500L);
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("alice", null, "valueguard.claims", 2, 30, 2000);
		given(this.publisher.releaseIf("alice", condition, "ops", true)).willReturn(receipt);
		given(this.rulings.conditionalRelease(receipt, condition, Duration.ofSeconds(5)))
			.willReturn(CompletableFuture.completedFuture(Release.of("alice", 2000)));

		this.mvc.perform(delete("/api/owners").param("value", "+1-555-0100").param("wait", "5s").principal(() -> "ops"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.key").value("alice"))
			.andExpect(jsonPath("$.outcome").value("RELEASED"));
	}

	@Test
	void shouldAnswer404WhenNobodyHoldsTheValueToFree() throws Exception {
		given(this.router.ownerNow("free-seat")).willReturn(new Answer<>(null, "host-b:8080", null));

		this.mvc.perform(delete("/api/owners/free-seat"))
			.andExpect(status().isNotFound())
			.andExpect(jsonPath("$.detail").value("No owner for value 'free-seat'"));
		then(this.publisher).should(never()).releaseIf(any(), any(), any(), anyBoolean());
	}

	@Test
	void shouldRefuseAWaitThatIsNotADurationOrTooLong() throws Exception {
		this.mvc.perform(put("/api/bindings/bob").param("wait", "soon").contentType(MediaType.TEXT_PLAIN).content("x"))
			.andExpect(status().isBadRequest())
			.andExpect(jsonPath("$.type").value("https://valueguard.io/problems/invalid-request"));
		this.mvc.perform(put("/api/bindings/bob").param("wait", "31s").contentType(MediaType.TEXT_PLAIN).content("x"))
			.andExpect(status().isBadRequest());
		verifyNoInteractions(this.publisher);
	}

	/** Bob claims a phone with {@code ?wait=}, and the ruling comes when the test completes it. */
	private MvcResult waitingClaim(String wait, CompletableFuture<@Nullable Ruling> ruling) throws Exception {
		ClaimPublisher.Receipt receipt = new ClaimPublisher.Receipt("bob", "phone", "valueguard.claims", 1, 7, 2000);
		given(this.publisher.publishWaitedFor("bob", "phone", null)).willReturn(receipt);
		given(this.rulings.ruling(receipt, DurationStyle.detectAndParse(wait))).willReturn(ruling);
		return this.mvc
			.perform(put("/api/bindings/bob").param("wait", wait).contentType(MediaType.TEXT_PLAIN).content("phone"))
			.andExpect(request().asyncStarted())
			.andReturn();
	}

}
