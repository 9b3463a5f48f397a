package io.valueguard.query;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import io.valueguard.kafka.StreamsClients;
import org.apache.kafka.streams.state.HostInfo;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestClientException;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * Calls other instances: one pooled {@link RestClient} with connect and read timeouts. Every call carries
 * {@link ForwardingHeaders#FORWARDED}, so the other instance answers from its own stores and never forwards again.
 */
@Component
class RemoteInstances implements DisposableBean {

	/** The other instance could not answer: unreachable, timed out, or not (yet) holding the partition. */
	static final class UnavailableException extends RuntimeException {

		UnavailableException(String message, @Nullable Throwable cause) {
			super(message, cause);
		}

	}

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final RestClient client;

	private final HttpClient http;

	private final java.time.Duration readTimeout;

	private final String self;

	private final ExecutorService fanOut = Executors.newFixedThreadPool(8, (task) -> {
		Thread thread = new Thread(task, "valueguard-fan-out");
		thread.setDaemon(true);
		return thread;
	});

	RemoteInstances(QueryProperties properties, StreamsClients clients) {
		this.http = HttpClient.newBuilder()
			.version(HttpClient.Version.HTTP_1_1)
			.connectTimeout(properties.connectTimeout())
			.build();
		this.readTimeout = properties.readTimeout();
		JdkClientHttpRequestFactory factory = new JdkClientHttpRequestFactory(this.http);
		factory.setReadTimeout(properties.readTimeout());
		this.client = RestClient.builder().requestFactory(factory).build();
		this.self = Hosts.name(clients.self());
	}

	ExecutorService fanOut() {
		return this.fanOut;
	}

	/**
	 * Looks one entry up on {@code host}; an empty entry means the host holds the partition and the key is absent.
	 * This is the hot path of forwarding, so it talks to the JDK client directly, HTTP/1.1 on kept-alive
	 * connections, the body read as bytes and parsed once: through RestClient, a forwarded lookup cost nearly twice
	 * as much (docs/benchmarks.md).
	 */
	<T> Answer<T> lookup(HostInfo host, StoreView<?, T> view, String key, @Nullable Long maxLag) {
		// the query form: it carries every key, '/' included, which a path segment cannot
		HttpRequest request = HttpRequest.newBuilder(uri(host, view, maxLag, key))
			.header(ForwardingHeaders.FORWARDED, this.self)
			.header("Accept", "application/json")
			.timeout(this.readTimeout)
			.GET()
			.build();
		HttpResponse<byte[]> response;
		try {
			response = this.http.send(request, HttpResponse.BodyHandlers.ofByteArray());
		}
		catch (IOException ex) {
			throw new UnavailableException("Cannot reach " + Hosts.name(host) + ": " + ex.getMessage(), ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new UnavailableException("Interrupted while asking " + Hosts.name(host), ex);
		}
		String servedBy = response.headers().firstValue(ForwardingHeaders.SERVED_BY).orElse(Hosts.name(host));
		Long lag = response.headers().firstValue(ForwardingHeaders.OFFSET_LAG).map(Long::valueOf).orElse(null);
		if (response.statusCode() == HttpStatus.OK.value()) {
			return new Answer<>(JSON.readValue(response.body(), view.type()), servedBy, lag);
		}
		if (response.statusCode() == HttpStatus.NOT_FOUND.value()) {
			return new Answer<>(null, servedBy, lag);
		}
		throw new UnavailableException(Hosts.name(host) + " answered " + response.statusCode(), null);
	}

	/**
	 * Looks many entries up on {@code host} in one request. The answer names each key the host holds the partition
	 * of, with null when the entry is absent; keys it does not hold are left out.
	 */
	<T> Map<String, @Nullable T> batch(HostInfo host, StoreView<?, T> view, List<String> keys, @Nullable Long maxLag) {
		URI uri = UriComponentsBuilder.fromUriString("http://" + Hosts.name(host) + view.path() + "/lookup")
			.queryParamIfPresent("maxLag", Optional.ofNullable(maxLag))
			.build()
			.toUri();
		ParameterizedTypeReference<Map<String, @Nullable T>> type = ParameterizedTypeReference
			.forType(ResolvableType.forClassWithGenerics(Map.class, String.class, view.type()).getType());
		return call(host, () -> this.client.post()
			.uri(uri)
			.header(ForwardingHeaders.FORWARDED, this.self)
			.contentType(MediaType.APPLICATION_JSON)
			.body(keys)
			.exchange((request, response) -> {
				if (response.getStatusCode().isSameCodeAs(HttpStatus.OK)) {
					return response.bodyTo(type);
				}
				throw new UnavailableException(Hosts.name(host) + " answered " + response.getStatusCode(), null);
			}));
	}

	<T> LocalPage<T> page(HostInfo host, StoreView<?, T> view, @Nullable String after, int limit,
			ParameterizedTypeReference<LocalPage<T>> type) {
		URI uri = UriComponentsBuilder.fromUriString("http://" + Hosts.name(host) + view.path())
			.queryParamIfPresent("after", Optional.ofNullable(after))
			.queryParam("limit", limit)
			.encode()
			.build()
			.toUri();
		return call(host, () -> this.client.get().uri(uri).header(ForwardingHeaders.FORWARDED, this.self)
			.exchange((request, response) -> {
				if (response.getStatusCode().isSameCodeAs(HttpStatus.OK)) {
					return response.bodyTo(type);
				}
				throw new UnavailableException(Hosts.name(host) + " answered " + response.getStatusCode(), null);
			}));
	}

	InstanceReport report(HostInfo host) {
		URI uri = URI.create("http://" + Hosts.name(host) + "/api/instances");
		return call(host, () -> this.client.get()
			.uri(uri)
			.header(ForwardingHeaders.FORWARDED, this.self)
			.retrieve()
			.body(InstanceReport.class));
	}

	/** Built by hand: expanding a URI template per forward cost several percent of the asking instance's CPU. */
	private static URI uri(HostInfo host, StoreView<?, ?> view, @Nullable Long maxLag, String key) {
		StringBuilder uri = new StringBuilder("http://").append(Hosts.name(host))
			.append(view.path())
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

	private static <R> R call(HostInfo host, java.util.function.Supplier<R> call) {
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
	}

}
