package io.valueguard.query;

import java.util.Optional;

import io.valueguard.claims.ClaimPublisher;
import io.valueguard.claims.ClaimRejection;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.webmvc.test.autoconfigure.WebMvcTest;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.servlet.MockMvc;

import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.put;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.content;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.header;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.jsonPath;
import static org.springframework.test.web.servlet.result.MockMvcResultMatchers.status;

/** The REST contract, problem bodies included, with the stores and Kafka mocked away. */
// no Kafka at all in a slice test: keep the local broker from starting
@WebMvcTest(controllers = { BindingsController.class, OwnersController.class },
		properties = "valueguard.embedded-kafka.enabled=false")
class BindingsControllerTests {

	@Autowired
	private MockMvc mvc;

	@MockitoBean
	private StoreQueries queries;

	@MockitoBean
	private ClaimPublisher publisher;

	@Test
	void shouldAcceptClaimWithReceiptAndLocation() throws Exception {
		given(this.publisher.publish("alice", "+1-555-0100"))
			.willReturn(new ClaimPublisher.Receipt("alice", "+1-555-0100", "valueguard.claims", 2, 41, 1000));

		this.mvc.perform(put("/api/bindings/alice").contentType(MediaType.TEXT_PLAIN).content("+1-555-0100"))
			.andExpect(status().isAccepted())
			.andExpect(header().string("Location", "/api/bindings/alice"))
			.andExpect(jsonPath("$.partition").value(2))
			.andExpect(jsonPath("$.offset").value(41));
	}

	@Test
	void shouldAnswerBindingAsJson() throws Exception {
		given(this.queries.binding("alice")).willReturn(Optional.of(new BindingView("alice", "phone", 1000)));

		this.mvc.perform(get("/api/bindings/alice"))
			.andExpect(status().isOk())
			.andExpect(jsonPath("$.key").value("alice"))
			.andExpect(jsonPath("$.value").value("phone"))
			.andExpect(jsonPath("$.timestamp").value(1000));
	}

	@Test
	void shouldAnswer400ProblemWhenClaimIsInvalid() throws Exception {
		given(this.publisher.publish(eq("alice"), anyString()))
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
		given(this.queries.owner("phone")).willReturn(Optional.empty());

		this.mvc.perform(get("/api/owners/phone"))
			.andExpect(status().isNotFound())
			.andExpect(content().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON))
			.andExpect(jsonPath("$.title").value("Not found"))
			.andExpect(jsonPath("$.detail").value("No owner for value 'phone'"));
	}

	@Test
	void shouldAnswer503WithRetryAfterWhenStoreIsUnavailable() throws Exception {
		given(this.queries.binding(anyString()))
			.willThrow(new StoreUnavailableException("bindings", new IllegalStateException("rebalancing")));

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

}
