package io.valueguard.query;

import org.springframework.web.util.UriUtils;

final class UriPaths {

	private UriPaths() {
	}

	static String segment(String text) {
		return UriUtils.encodePathSegment(text, java.nio.charset.StandardCharsets.UTF_8);
	}

}
