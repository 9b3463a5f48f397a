package io.valueguard.routing;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

import io.valueguard.config.QueryProperties;
import io.valueguard.config.SecurityProperties;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.config.ConnectionConfig;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.DefaultHttpRequestRetryStrategy;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.impl.io.PoolingHttpClientConnectionManagerBuilder;
import org.apache.hc.client5.http.ssl.DefaultClientTlsStrategy;
import org.apache.hc.core5.http.ClassicHttpResponse;
import org.apache.hc.core5.http.Header;
import org.apache.hc.core5.http.HttpResponse;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.protocol.HttpContext;
import org.apache.hc.core5.io.CloseMode;
import org.apache.hc.core5.util.TimeValue;
import org.apache.hc.core5.util.Timeout;
import org.apache.kafka.streams.state.HostInfo;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.HttpComponentsClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The instance-to-instance protocol, client side: calls {@link InstanceProtocolServlet} on other instances over one
 * pool of kept-alive connections, with connect and read timeouts; the other instance answers from its own stores and
 * never forwards again. The client is Apache HttpClient's blocking one, which works in the calling thread: the JDK's
 * client hands every exchange to its selector and executor threads, and those hand-offs cost the asking instance
 * more CPU than answering a local lookup (docs/benchmarks.md, "Lookups").
 */
@Component
class RemoteInstances implements DisposableBean {

	/** The other instance could not answer: unreachable, timed out, or not (yet) holding the partition. */
	static final class UnavailableException extends RuntimeException {

		UnavailableException(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

		/** No answer at all came back (refused, reset, timed out), as opposed to an answer that it cannot help. */
		boolean silent() {
			return causedBy(IOException.class);
		}

		/** No answer came back in time: connecting or reading timed out. */
		boolean timedOut() {
			return causedBy(InterruptedIOException.class);
		}

		private boolean causedBy(Class<? extends Throwable> type) {
			for (Throwable cause = getCause(); cause != null; cause = cause.getCause()) {
				if (type.isInstance(cause)) {
					return true;
				}
			}
			return false;
		}

	}

	// the instance protocol's own mapper, as InstanceProtocolServlet's: a wire format, independent of spring.jackson.*
	private static final JsonMapper JSON = JsonMapper.builder().build();

	/** Concurrent calls to one instance; a call that finds them all busy waits up to the connect timeout. */
	private static final int CONNECTIONS_PER_INSTANCE = 64;

	private static final int CONNECTIONS = 256;

	private final RestClient client;

	private final @Nullable RequestSignature signature;

	/** {@code https} when {@code valueguard.query.peer-ssl-bundle} is set. */
	private final String scheme;

	private final CloseableHttpClient http;

	/** The default of every call; a lookup with less of its budget left than the read timeout waits less. */
	private final RequestConfig requests;

	private final ExecutorService fanOut = Executors.newFixedThreadPool(8, (task) -> {
		Thread thread = new Thread(task, "valueguard-fan-out");
		thread.setDaemon(true);
		return thread;
	});

	RemoteInstances(QueryProperties properties, SecurityProperties security, ObjectProvider<SslBundles> sslBundles) {
		this.signature = RequestSignature.of(security);
		SSLContext tls = (properties.peerSslBundle() != null)
				? sslBundles.getObject().getBundle(properties.peerSslBundle()).createSslContext() : null;
		this.scheme = (tls != null) ? "https" : "http";
		this.requests = RequestConfig.custom()
			.setConnectionRequestTimeout(timeout(properties.connectTimeout()))
			.setResponseTimeout(timeout(properties.readTimeout()))
			.build();
		ConnectionConfig connections = ConnectionConfig.custom()
			.setConnectTimeout(timeout(properties.connectTimeout()))
			.setSocketTimeout(timeout(properties.readTimeout()))
			// the other instance closes connections that idle too long: check one before reusing it after a pause
			.setValidateAfterInactivity(TimeValue.ofSeconds(2))
			.build();
		this.http = HttpClients.custom()
			.setConnectionManager(PoolingHttpClientConnectionManagerBuilder.create()
				.setTlsSocketStrategy((tls != null) ? new DefaultClientTlsStrategy(tls) : null)
				.setDefaultConnectionConfig(connections)
				.setMaxConnPerRoute(CONNECTIONS_PER_INSTANCE)
				.setMaxConnTotal(CONNECTIONS)
				.build())
			.setDefaultRequestConfig(this.requests)
			.setRetryStrategy(new RetryStaleConnections())
			.evictIdleConnections(TimeValue.ofSeconds(30))
			.disableCookieManagement()
			.disableAuthCaching()
			.disableRedirectHandling()
			.disableContentCompression()
			.build();
		this.client = RestClient.builder().requestFactory(new HttpComponentsClientHttpRequestFactory(this.http)).build();
	}

	/**
	 * A call that fails on the wire before any answer is retried once at once, for a kept-alive connection the other
	 * instance closed just then (idempotent calls only). An answer is never retried here: a 503 means "ask again
	 * with fresh metadata", which {@link LookupRouter} does within its budget, and the client's own retry would wait
	 * out the Retry-After on the same host.
	 */
	private static final class RetryStaleConnections extends DefaultHttpRequestRetryStrategy {

		RetryStaleConnections() {
			super(1, TimeValue.ZERO_MILLISECONDS);
		}

		@Override
		public boolean retryRequest(HttpResponse response, int execCount, HttpContext context) {
			return false;
		}

	}

	private static Timeout timeout(Duration duration) {
		// at least a millisecond: zero would mean no timeout at all
		return Timeout.ofMilliseconds(Math.max(1, duration.toMillis()));
	}

	ExecutorService fanOut() {
		return this.fanOut;
	}

	/**
	 * Looks one entry up on {@code host}; an empty entry means the host holds the partition and the key is absent.
	 * Waits for the answer at most {@code within} (what is left of the caller's budget) when that is shorter than the
	 * read timeout. This is the hot path of forwarding, so it skips {@link RestClient}: the body is read as bytes and
	 * parsed once.
	 */
	<T> Answer<T> lookup(HostInfo host, Lookup<?, T> view, String key, @Nullable Long maxLag,
			@Nullable Duration within) {
		// the query form: it carries every key, '/' included, which a path segment cannot
		URI uri = uri(host, view, maxLag, key);
		HttpGet request = new HttpGet(uri);
		if (within != null && within.toMillis() < this.requests.getResponseTimeout().toMilliseconds()) {
			request.setConfig(RequestConfig.copy(this.requests).setResponseTimeout(timeout(within)).build());
		}
		String signed = sign("GET", uri, null);
		if (signed != null) {
			request.setHeader(RequestSignature.HEADER, signed);
		}
		request.setHeader("Accept", "application/json");
		try {
			return this.http.execute(request, (response) -> answer(host, view, response));
		}
		catch (IOException ex) {
			throw new UnavailableException("Cannot reach " + Hosts.name(host) + ": " + ex.getMessage(), ex);
		}
	}

	private static <T> Answer<T> answer(HostInfo host, Lookup<?, T> view, ClassicHttpResponse response)
			throws IOException {
		// every answer of InstanceProtocolServlet names its instance: a 404 without the header is a missing route (an
		// older build without it), not a missing entry
		String servedBy = header(response, AnswerHeaders.SERVED_BY);
		int status = response.getCode();
		if (servedBy == null || (status != HttpStatus.OK.value() && status != HttpStatus.NOT_FOUND.value())) {
			// read to the end, so that the connection goes back to the pool
			EntityUtils.consume(response.getEntity());
			throw new UnavailableException(Hosts.name(host) + " answered " + status
					+ ((servedBy == null) ? " without " + AnswerHeaders.SERVED_BY : ""), null);
		}
		String lag = header(response, AnswerHeaders.OFFSET_LAG);
		Long offsetLag = (lag != null) ? Long.valueOf(lag) : null;
		if (status == HttpStatus.NOT_FOUND.value()) {
			EntityUtils.consume(response.getEntity());
			return new Answer<>(null, servedBy, offsetLag);
		}
		T entry = JSON.readValue(EntityUtils.toByteArray(response.getEntity()), view.type());
		return new Answer<>(entry, servedBy, offsetLag);
	}

	private static @Nullable String header(ClassicHttpResponse response, String name) {
		Header header = response.getFirstHeader(name);
		return (header != null) ? header.getValue() : null;
	}

	/**
	 * Looks many entries up on {@code host} in one request. The answer names each key the host holds the partition
	 * of, with null when the entry is absent; keys it does not hold are left out.
	 */
	<T> Map<String, @Nullable T> batch(HostInfo host, Lookup<?, T> view, List<String> keys) {
		URI uri = URI.create(base(host) + InstanceProtocolServlet.LOOKUP + view.name());
		ParameterizedTypeReference<Map<String, @Nullable T>> type = ParameterizedTypeReference
			.forType(ResolvableType.forClassWithGenerics(Map.class, String.class, view.type()).getType());
		byte[] body = JSON.writeValueAsBytes(keys);
		return call(host, () -> this.client.post()
			.uri(uri)
			.contentType(MediaType.APPLICATION_JSON)
			.headers((headers) -> signed(headers, "POST", uri, body))
			.body(body)
			.exchange((request, response) -> {
				if (response.getStatusCode().isSameCodeAs(HttpStatus.OK)) {
					return response.bodyTo(type);
				}
				throw new UnavailableException(Hosts.name(host) + " answered " + response.getStatusCode(), null);
			}));
	}

	<T> LocalPage<T> page(HostInfo host, Lookup<?, T> view, @Nullable String after, int limit,
			ParameterizedTypeReference<LocalPage<T>> type) {
		URI uri = UriComponentsBuilder.fromUriString(base(host) + InstanceProtocolServlet.PAGE + view.name())
			.queryParamIfPresent("after", Optional.ofNullable(after))
			.queryParam("limit", limit)
			.encode()
			.build()
			.toUri();
		return call(host, () -> this.client.get()
			.uri(uri)
			.headers((headers) -> signed(headers, "GET", uri, null))
			.exchange((request, response) -> {
				if (response.getStatusCode().isSameCodeAs(HttpStatus.OK)) {
					return response.bodyTo(type);
				}
				throw new UnavailableException(Hosts.name(host) + " answered " + response.getStatusCode(), null);
			}));
	}

	InstanceReport report(HostInfo host) {
		URI uri = URI.create(base(host) + InstanceProtocolServlet.INSTANCE);
		return call(host, () -> this.client.get()
			.uri(uri)
			.headers((headers) -> signed(headers, "GET", uri, null))
			.retrieve()
			.body(InstanceReport.class));
	}

	/** The signature header's value for a request, or null when no internal secret is set. */
	private @Nullable String sign(String method, URI uri, byte @Nullable [] body) {
		return (this.signature != null) ? this.signature.sign(method, uri.getRawPath(), uri.getRawQuery(), body) : null;
	}

	private void signed(HttpHeaders headers, String method, URI uri, byte @Nullable [] body) {
		String signed = sign(method, uri, body);
		if (signed != null) {
			headers.set(RequestSignature.HEADER, signed);
		}
	}

	/** Where the protocol lives on {@code host}. */
	private String base(HostInfo host) {
		return this.scheme + "://" + Hosts.name(host) + InstanceProtocolServlet.PATH;
	}

	/** Built by hand, because it is on the path of every forward, where a URI template's expansion shows in profiles. */
	private URI uri(HostInfo host, Lookup<?, ?> view, @Nullable Long maxLag, String key) {
		StringBuilder uri = new StringBuilder(base(host)).append(InstanceProtocolServlet.LOOKUP)
			.append(view.name())
			.append('?')
			.append(view.parameter())
			.append('=')
			// URLEncoder writes a space as '+', a space only in form encoding; %20 is one in every query
			.append(URLEncoder.encode(key, StandardCharsets.UTF_8).replace("+", "%20"));
		if (maxLag != null) {
			uri.append("&maxLag=").append(maxLag);
		}
		return URI.create(uri.toString());
	}

	private static <R> R call(HostInfo host, Supplier<R> call) {
		try {
			R result = call.get();
			if (result == null) {
				throw new UnavailableException(Hosts.name(host) + " sent an empty answer", null);
			}
			return result;
		}
		catch (RestClientException ex) {
			Throwable cause = (ex.getCause() instanceof IOException io) ? io : ex;
			throw new UnavailableException("Cannot reach " + Hosts.name(host) + ": " + cause.getMessage(), ex);
		}
	}

	@Override
	public void destroy() {
		this.fanOut.shutdownNow();
		this.http.close(CloseMode.GRACEFUL);
	}

}
