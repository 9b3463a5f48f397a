package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

import javax.net.ssl.SSLContext;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.web.util.UriUtils;

/** A small HTTP client for the REST API, as a user's curl would call it. */
public final class ApiClient {

	private static final JsonMapper JSON = JsonMapper.builder().build();

	private final HttpClient http;

	private final String baseUrl;

	private final Duration timeout;

	private final @Nullable String authorization;

	public ApiClient(int port) {
		this(port, Duration.ofSeconds(30));
	}

	/** A client whose requests give up after {@code timeout}, for probes that must not hang on a paused peer. */
	public ApiClient(int port, Duration timeout) {
		this("http://localhost:" + port, timeout, null);
	}

	private ApiClient(String baseUrl, Duration timeout, @Nullable String authorization) {
		this(baseUrl, timeout, authorization, HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build());
	}

	private ApiClient(String baseUrl, Duration timeout, @Nullable String authorization, HttpClient http) {
		this.http = http;
		this.baseUrl = baseUrl;
		this.timeout = timeout;
		this.authorization = authorization;
	}

	/** The same client, sending {@code Authorization: <authorization>} with every request. */
	public ApiClient withAuthorization(String authorization) {
		return new ApiClient(this.baseUrl, this.timeout, authorization, this.http);
	}

	/** A client of {@code https://localhost:<port>} that trusts what {@code tls} trusts. */
	public static ApiClient https(int port, SSLContext tls) {
		return new ApiClient("https://localhost:" + port, Duration.ofSeconds(30), null,
				HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(tls).build());
	}

	/** A PUT of a plain-text body, for bodies of any size. */
	public Reply put(String path, byte[] body) {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "text/plain")
			.PUT(HttpRequest.BodyPublishers.ofByteArray(body)));
	}

	public record Reply(int status, String contentType, String body, java.net.http.HttpHeaders headers) {

		public JsonNode json() {
			return JSON.readTree(this.body);
		}

	}

	public Reply claim(String key, String value) {
		return send(HttpRequest.newBuilder(uri("/api/bindings/" + segment(key)))
			.header("Content-Type", "text/plain")
			.PUT(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8)));
	}

	/** A claim with the body exactly as given, bytes that are not UTF-8 included. */
	public Reply claim(String key, byte[] value) {
		return send(HttpRequest.newBuilder(uri("/api/bindings/" + segment(key)))
			.header("Content-Type", "text/plain")
			.PUT(HttpRequest.BodyPublishers.ofByteArray(value)));
	}

	/** A claim in the query form, which carries any key, '/' included. */
	public Reply claimByParameter(String key, String value) {
		return send(HttpRequest.newBuilder(uri("/api/bindings?key=" + parameter(key)))
			.header("Content-Type", "text/plain")
			.PUT(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8)));
	}

	/** A synchronous claim: {@code ?wait=} the given duration, such as {@code 5s}. */
	public Reply claim(String key, String value, String wait) {
		return send(HttpRequest.newBuilder(uri("/api/bindings/" + segment(key) + "?wait=" + parameter(wait)))
			.header("Content-Type", "text/plain")
			.PUT(HttpRequest.BodyPublishers.ofString(value, StandardCharsets.UTF_8)));
	}

	/** A synchronous release: {@code ?wait=} the given duration. */
	public Reply release(String key, String wait) {
		return send(HttpRequest.newBuilder(uri("/api/bindings/" + segment(key) + "?wait=" + parameter(wait))).DELETE());
	}

	/** An erasure: {@code DELETE ?erase=true}, waiting the given duration. */
	public Reply erase(String key, String wait) {
		return send(HttpRequest.newBuilder(uri("/api/bindings/" + segment(key) + "?erase=true&wait=" + parameter(wait)))
			.DELETE());
	}

	/** A DELETE of the path as given, query included (encode what needs it, as {@link #parameter} does). */
	public Reply delete(String pathAndQuery) {
		return send(HttpRequest.newBuilder(uri(pathAndQuery)).DELETE());
	}

	public Reply release(String key) {
		return send(HttpRequest.newBuilder(uri("/api/bindings/" + segment(key))).DELETE());
	}

	public Reply binding(String key) {
		return get("/api/bindings/" + segment(key));
	}

	/** The query form, for keys a path segment cannot carry. */
	public Reply bindingByParameter(String key) {
		return get("/api/bindings?key=" + parameter(key));
	}

	public Reply owner(String value) {
		return get("/api/owners/" + segment(value));
	}

	/** Key to bound value, for each of {@code keys} that is bound, asked one by one. */
	public Map<String, String> boundValues(Set<String> keys) {
		return answered(keys, this::binding, "value");
	}

	/** Value to owning key, for each of {@code values} that is owned, asked one by one. */
	public Map<String, String> owners(Set<String> values) {
		return answered(values, this::owner, "key");
	}

	private static Map<String, String> answered(Set<String> ids, java.util.function.Function<String, Reply> lookup,
			String field) {
		Map<String, String> answers = new HashMap<>();
		for (String id : ids) {
			Reply reply = lookup.apply(id);
			if (reply.status() == 200) {
				answers.put(id, reply.json().get(field).asString());
			}
		}
		return answers;
	}

	/** A POST of a JSON body, as a batch lookup is asked. */
	public Reply postJson(String path, String json) {
		return send(HttpRequest.newBuilder(uri(path))
			.header("Content-Type", "application/json")
			.POST(HttpRequest.BodyPublishers.ofString(json, StandardCharsets.UTF_8)));
	}

	public Reply get(String path) {
		return send(HttpRequest.newBuilder(uri(path)).GET());
	}

	/** A GET with one extra header, for requests the container itself must refuse. */
	public Reply get(String path, String header, String value) {
		return send(HttpRequest.newBuilder(uri(path)).header(header, value).GET());
	}

	private Reply send(HttpRequest.Builder request) {
		try {
			if (this.authorization != null) {
				request.header("Authorization", this.authorization);
			}
			HttpResponse<String> response = this.http.send(request.timeout(this.timeout).build(),
					HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
			return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
					response.body(), response.headers());
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private URI uri(String path) {
		return URI.create(this.baseUrl + path);
	}

	public static String parameter(String text) {
		// RFC 3986 allows '+' in a query, but servlet containers read it as a space, as forms do
		return UriUtils.encodeQueryParam(text, StandardCharsets.UTF_8).replace("+", "%2B");
	}

	private static String segment(String text) {
		return UriUtils.encodePathSegment(text, StandardCharsets.UTF_8);
	}

}
