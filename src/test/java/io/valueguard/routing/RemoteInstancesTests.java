package io.valueguard.routing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.valueguard.config.QueryProperties;
import io.valueguard.support.SecuritySettings;
import io.valueguard.support.TestProperties;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.StaticListableBeanFactory;
import org.springframework.boot.ssl.SslBundles;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The forwarding client against a stand-in instance: what it sends, how it reads each answer, and that it leaves
 * retries to {@link LookupRouter}, which asks again with fresh metadata.
 */
class RemoteInstancesTests {

	private final HttpServer server;

	private final List<String> queries = new CopyOnWriteArrayList<>();

	private final List<String> paths = new CopyOnWriteArrayList<>();

	private final List<String> signatures = new CopyOnWriteArrayList<>();

	private final AtomicInteger status = new AtomicInteger(200);

	/** Held while the stand-in plays a frozen instance: it takes the request and never answers. */
	private final CountDownLatch thawed = new CountDownLatch(1);

	private volatile boolean frozen;

	private final RemoteInstances remote;

	private final HostInfo host;

	RemoteInstancesTests() throws IOException {
		this.server = HttpServer.create(new InetSocketAddress("localhost", 0), 0);
		this.server.createContext(InstanceProtocolServlet.PATH + InstanceProtocolServlet.LOOKUP + "bindings", this::answer);
		this.host = new HostInfo("localhost", this.server.getAddress().getPort());
		QueryProperties properties = TestProperties.query(Map.of("connect-timeout", "1s", "read-timeout", "3s"));
		this.remote = new RemoteInstances(properties, SecuritySettings.open(SecuritySettings.SECRET),
				new StaticListableBeanFactory().getBeanProvider(SslBundles.class));
	}

	@BeforeEach
	void start() {
		this.server.start();
	}

	@AfterEach
	void stop() {
		this.thawed.countDown();
		this.remote.destroy();
		this.server.stop(0);
	}

	private void answer(HttpExchange exchange) throws IOException {
		if (this.frozen) {
			try {
				this.thawed.await();
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			exchange.close();
			return;
		}
		this.queries.add(exchange.getRequestURI().getRawQuery());
		this.paths.add(exchange.getRequestURI().getRawPath());
		this.signatures.add(exchange.getRequestHeaders().getFirst(RequestSignature.HEADER));
		exchange.getResponseHeaders().set(AnswerHeaders.SERVED_BY, "b-host:8080");
		int code = this.status.get();
		if (code == 200) {
			exchange.getResponseHeaders().set(AnswerHeaders.OFFSET_LAG, "7");
			byte[] body = "{\"key\":\"a b/c+d\",\"value\":\"seat-1\",\"timestamp\":42}".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(200, body.length);
			exchange.getResponseBody().write(body);
		}
		else {
			exchange.getResponseHeaders().set("Retry-After", "5");
			byte[] body = "{\"title\":\"not now\"}".getBytes(StandardCharsets.UTF_8);
			exchange.sendResponseHeaders(code, body.length);
			exchange.getResponseBody().write(body);
		}
		exchange.close();
	}

	@Test
	void shouldSendTheKeyEscapedInTheQueryAndReadTheAnswer() {
		Answer<BindingView> answer = this.remote.lookup(this.host, Lookup.BINDINGS, "a b/c+d&e=ü", 1000L, null);

		assertThat(answer.entry()).isEqualTo(new BindingView("a b/c+d", "seat-1", 42));
		assertThat(answer.servedBy()).isEqualTo("b-host:8080");
		assertThat(answer.staleLag()).isEqualTo(7);
		assertThat(this.queries).containsExactly("key=a%20b%2Fc%2Bd%26e%3D%C3%BC&maxLag=1000");
		assertThat(this.paths).containsExactly("/internal/lookup/bindings");
		RequestSignature verifier = RequestSignature.of(SecuritySettings.open(SecuritySettings.SECRET));
		assertThat(verifier.refusal(this.signatures.get(0), "GET", "/internal/lookup/bindings",
				"key=a%20b%2Fc%2Bd%26e%3D%C3%BC&maxLag=1000", null))
			.as("the request is signed over what the other instance receives")
			.isNull();
	}

	@Test
	void shouldReadNotFoundAsAnAbsentEntryAndKeepUsingTheConnection() {
		this.status.set(404);
		for (int i = 0; i < 3; i++) {
			Answer<BindingView> answer = this.remote.lookup(this.host, Lookup.BINDINGS, "nobody", null, null);
			assertThat(answer.entry()).isNull();
			assertThat(answer.servedBy()).isEqualTo("b-host:8080");
		}
		assertThat(this.queries).containsExactly("key=nobody", "key=nobody", "key=nobody");
	}

	@Test
	void shouldLeaveA503ToTheRouterInsteadOfWaitingOutRetryAfter() {
		this.status.set(503);

		assertThatExceptionOfType(RemoteInstances.UnavailableException.class)
			.isThrownBy(() -> this.remote.lookup(this.host, Lookup.BINDINGS, "moving", null, null))
			.withMessageContaining("answered 503")
			.matches((ex) -> !ex.silent(), "an answer, if an unhelpful one");
		assertThat(this.queries).as("asked once").hasSize(1);
	}

	@Test
	void shouldNotTakeAMissingRouteForAnAbsentEntry() {
		// the stand-in has no owners lookup, as an instance of a build before the servlet has none: a bare 404
		assertThatExceptionOfType(RemoteInstances.UnavailableException.class)
			.isThrownBy(() -> this.remote.lookup(this.host, Lookup.OWNERS, "seat-1", null, null))
			.withMessageContaining("answered 404 without " + AnswerHeaders.SERVED_BY);
	}

	@Test
	void shouldWaitForAFrozenInstanceNoLongerThanItIsTold() {
		this.frozen = true;
		long started = System.nanoTime();

		assertThatExceptionOfType(RemoteInstances.UnavailableException.class)
			.isThrownBy(() -> this.remote.lookup(this.host, Lookup.BINDINGS, "anyone", null, Duration.ofMillis(200)))
			.withMessageContaining("Cannot reach localhost:" + this.host.port())
			.matches(RemoteInstances.UnavailableException::timedOut, "timed out")
			.matches(RemoteInstances.UnavailableException::silent, "no answer at all");
		// the read timeout is 3 s: the call gave up at what it was told, not at that
		assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
	}

	@Test
	void shouldReportAnInstanceThatIsNotThere() {
		this.server.stop(0);

		assertThatExceptionOfType(RemoteInstances.UnavailableException.class)
			.isThrownBy(() -> this.remote.lookup(this.host, Lookup.BINDINGS, "anyone", null, null))
			.withMessageContaining("Cannot reach localhost:" + this.host.port())
			.matches(RemoteInstances.UnavailableException::silent, "no answer at all");
	}

}
