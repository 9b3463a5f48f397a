package io.valueguard.routing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.support.TestProperties;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.BDDMockito.then;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;

/**
 * What a key holds, as lookups answer it: under first-wins a pending claim that the value stage has granted is a
 * binding, as a synchronous claim's BOUND says, before the grant reaches the key stage.
 */
class BindingLookupsTests {

	private final LookupRouter router = mock(LookupRouter.class);

	/** Every batch of values whose holders were asked for. */
	private final List<List<String>> holderBatches = new ArrayList<>();

	@Test
	void shouldAnswerABoundKeyFromItsRecordAlone() {
		claim(new ClaimView("alice", "phone", 100, true, false, false), "vg-1", null);

		Answer<BindingView> answer = firstWins().binding("alice", null);

		assertThat(answer).isEqualTo(new Answer<>(new BindingView("alice", "phone", 100), "vg-1", null));
		then(this.router).should(never()).owner(anyString(), any());
	}

	@Test
	void shouldAnswerAPendingClaimThatTheValueStageGrantedAsABinding() {
		claim(new ClaimView("alice", "phone", 100, false, true, false), "vg-1", null);
		holder("phone", new OwnerView("phone", "alice", 100), "vg-2", null);

		Answer<BindingView> answer = firstWins().binding("alice", null);

		// both instances read are named
		assertThat(answer).isEqualTo(new Answer<>(new BindingView("alice", "phone", 100), "vg-1, vg-2", null));
	}

	@Test
	void shouldNotAnswerAPendingClaimAsABindingBeforeTheValueStageGrantedIt() {
		claim(new ClaimView("alice", "phone", 100, false, true, false), "vg-1", null);
		holder("phone", new OwnerView("phone", "bob", 50), "vg-1", null);
		assertThat(firstWins().binding("alice", null)).isEqualTo(new Answer<>(null, "vg-1", null));

		// her own earlier claim of the value is not this claim's grant
		holder("phone", new OwnerView("phone", "alice", 90), "vg-1", null);
		assertThat(firstWins().binding("alice", null).entry()).isNull();

		// nobody holds it yet
		holder("phone", null, "vg-1", null);
		assertThat(firstWins().binding("alice", null).entry()).isNull();
	}

	@Test
	void shouldAnswerNothingForARefusedOrReleasedClaimWithoutAskingTheHolder() {
		claim(new ClaimView("mallory", "phone", 100, false, false, false), "vg-1", null);
		assertThat(firstWins().binding("mallory", null).entry()).isNull();
		claim(new ClaimView("mallory", null, 200, false, false, false), "vg-1", null);
		assertThat(firstWins().binding("mallory", null).entry()).isNull();
		given(this.router.lookup(eq(Lookup.CLAIMS.cached()), eq("nobody"), any()))
			.willReturn(new Answer<>(null, "vg-1", null));
		assertThat(firstWins().binding("nobody", null).entry()).isNull();

		then(this.router).should(never()).owner(anyString(), any());
	}

	@Test
	void shouldSayTheLargerLagWhenEitherReadCameFromAStandby() {
		claim(new ClaimView("alice", "phone", 100, false, true, false), "vg-1", 3L);
		holder("phone", new OwnerView("phone", "alice", 100), "vg-2", null);
		assertThat(firstWins().binding("alice", 10L).staleLag()).isEqualTo(3L);

		holder("phone", new OwnerView("phone", "alice", 100), "vg-2", 7L);
		assertThat(firstWins().binding("alice", 10L).staleLag()).isEqualTo(7L);
	}

	@Test
	void shouldFailALookupWhoseHolderCannotBeReadRatherThanAnswerFromTheKeyAlone() {
		claim(new ClaimView("alice", "phone", 100, false, true, false), "vg-1", null);
		given(this.router.owner(eq("phone"), any()))
			.willThrow(new StoreUnavailableException("owners", "rebalancing", Duration.ofSeconds(1)));

		assertThatExceptionOfType(StoreUnavailableException.class)
			.isThrownBy(() -> firstWins().binding("alice", null));
	}

	@Test
	void shouldAskTheHoldersOfTheBatchsPendingValuesInOneSecondBatch() {
		Map<String, @Nullable ClaimView> claims = new HashMap<>();
		claims.put("alice", new ClaimView("alice", "phone", 100, false, true, false));
		claims.put("bob", new ClaimView("bob", "seat", 100, true, false, false));
		claims.put("carol", new ClaimView("carol", "desk", 100, false, true, false));
		claims.put("dave", new ClaimView("dave", "phone", 50, false, false, false));
		claims.put("erin", null);
		given(this.router.batch(eq(Lookup.CLAIMS.cached()), anyList(), any())).willReturn(claims);
		given(this.router.batch(eq(Lookup.OWNERS), anyList(), any())).willAnswer((invocation) -> {
			List<String> values = invocation.getArgument(1);
			this.holderBatches.add(values);
			Map<String, @Nullable OwnerView> holders = new HashMap<>();
			holders.put("phone", new OwnerView("phone", "alice", 100));
			holders.put("desk", null);
			holders.keySet().retainAll(values);
			return holders;
		});

		Map<String, @Nullable BindingView> bindings = firstWins()
			.batch(List.of("alice", "bob", "carol", "dave", "erin"), null);

		Map<String, @Nullable BindingView> expected = new HashMap<>();
		expected.put("alice", new BindingView("alice", "phone", 100));
		expected.put("bob", new BindingView("bob", "seat", 100));
		expected.put("carol", null);
		expected.put("dave", null);
		expected.put("erin", null);
		assertThat(bindings).isEqualTo(expected);
		assertThat(this.holderBatches).singleElement().asList().containsExactlyInAnyOrder("phone", "desk");
	}

	@Test
	void shouldAskNoHoldersForABatchWithoutPendingClaims() {
		Map<String, @Nullable ClaimView> claims = new HashMap<>();
		claims.put("bob", new ClaimView("bob", "seat", 100, true, false, false));
		given(this.router.batch(eq(Lookup.CLAIMS.cached()), anyList(), any())).willReturn(claims);

		assertThat(firstWins().batch(List.of("bob"), null)).containsEntry("bob", new BindingView("bob", "seat", 100));
		then(this.router).should(never()).batch(eq(Lookup.OWNERS), anyList(), any());
	}

	@Test
	void shouldReadTheBindingsStoreAloneUnderLatestWins() {
		Answer<BindingView> bound = new Answer<>(new BindingView("alice", "phone", 100), "vg-1", null);
		given(this.router.binding("alice", null)).willReturn(bound);
		given(this.router.batch(Lookup.BINDINGS, List.of("alice"), null))
			.willReturn(Map.of("alice", bound.entry()));
		BindingLookups latestWins = new BindingLookups(this.router, TestProperties.defaults());

		assertThat(latestWins.binding("alice", null)).isEqualTo(bound);
		assertThat(latestWins.batch(List.of("alice"), null)).containsEntry("alice", bound.entry());
		then(this.router).should(never()).lookup(any(), anyString(), any());
		then(this.router).should(never()).owner(anyString(), any());
	}

	private BindingLookups firstWins() {
		return new BindingLookups(this.router, TestProperties.of(Map.of("valueguard.policy", "first-wins")));
	}

	private void claim(ClaimView claim, String servedBy, @Nullable Long staleLag) {
		given(this.router.lookup(eq(Lookup.CLAIMS.cached()), eq(claim.key()), any()))
			.willReturn(new Answer<>(claim, servedBy, staleLag));
	}

	private void holder(String value, @Nullable OwnerView holder, String servedBy, @Nullable Long staleLag) {
		given(this.router.owner(eq(value), any())).willReturn(new Answer<>(holder, servedBy, staleLag));
	}

}
