package io.valueguard.security;

/**
 * The characters Spring Security's {@code StrictHttpFirewall} allows in header names and values and in parameter
 * names, decided without its regular expressions. The firewall checks every header a request reads, character by
 * character, against a Unicode class ({@code [\p{IsAssigned}&&[^\p{IsControl}]]}, tab allowed in values); a bearer
 * token is a header of several hundred characters, and that regular expression cost a bearer lookup more than
 * everything else Spring Security does for it. The rules are the same: assigned code points that are not control
 * characters, and in a value also the tab (HeaderCharactersTests compares both for every code point).
 */
final class HeaderCharacters {

	private HeaderCharacters() {
	}

	/** Whether a header or parameter name passes: assigned code points, no control characters. */
	static boolean name(String name) {
		return allowed(name, false);
	}

	/** Whether a header value passes: assigned code points, no control characters but the tab. */
	static boolean value(String value) {
		return allowed(value, true);
	}

	private static boolean allowed(String text, boolean tab) {
		int i = 0;
		while (i < text.length()) {
			char c = text.charAt(i);
			if (c >= 0x20 && c < 0x7F) {
				// printable ASCII, nearly every character of every header: assigned, and not a control character
				i++;
				continue;
			}
			int codePoint = text.codePointAt(i);
			if (Character.getType(codePoint) == Character.UNASSIGNED
					|| (Character.isISOControl(codePoint) && !(tab && codePoint == '\t'))) {
				return false;
			}
			i += Character.charCount(codePoint);
		}
		return true;
	}

}
