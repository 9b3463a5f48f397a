package io.valueguard.api;

import java.net.URI;
import java.nio.charset.StandardCharsets;

import io.valueguard.routing.Lookup;

import org.springframework.web.util.UriComponentsBuilder;
import org.springframework.web.util.UriUtils;

/** Addresses of entries, in the form that reaches them through any servlet container. */
final class UriPaths {

	private UriPaths() {
	}

	/**
	 * Where an entry is read: the path form for ordinary keys, the query form for keys the container would refuse
	 * in a path segment ({@code /}, {@code \}, control characters, which it rejects even when percent-encoded).
	 */
	static URI location(Lookup<?, ?> view, String key) {
		if (pathSafe(key)) {
			return URI.create(view.path() + "/" + UriUtils.encodePathSegment(key, StandardCharsets.UTF_8));
		}
		return query(view.path(), view, key);
	}

	/** The query form, on any base: {@code /api/bindings?key=...}. */
	static URI query(String base, Lookup<?, ?> view, String key) {
		return UriComponentsBuilder.fromUriString(base)
			.queryParam(view.parameter(), "{key}")
			.encode()
			.buildAndExpand(key)
			.toUri();
	}

	private static boolean pathSafe(String key) {
		for (int i = 0; i < key.length(); i++) {
			char c = key.charAt(i);
			if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f || c == ';') {
				return false;
			}
		}
		return !key.equals(".") && !key.equals("..");
	}

}
