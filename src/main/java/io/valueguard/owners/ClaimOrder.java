package io.valueguard.owners;

/**
 * The total order on claims of one value: the later effective timestamp wins, and on equal timestamps the greater
 * key, compared as UTF-8 bytes.
 */
public final class ClaimOrder {

	private ClaimOrder() {
	}

	/** Negative, zero or positive as claim (aTimestamp, aKey) is less than, equal to or greater than the other. */
	public static int compare(long aTimestamp, String aKey, long bTimestamp, String bKey) {
		int byTime = Long.compare(aTimestamp, bTimestamp);
		return (byTime != 0) ? byTime : compareKeys(aKey, bKey);
	}

	/**
	 * Compares two keys as their UTF-8 bytes would compare, unsigned. UTF-8 preserves code point order, so comparing
	 * code points gives the same answer without encoding (String.compareTo compares UTF-16 units, which differs for
	 * characters above U+FFFF).
	 */
	public static int compareKeys(String a, String b) {
		int i = 0;
		int j = 0;
		while (i < a.length() && j < b.length()) {
			int ca = a.codePointAt(i);
			int cb = b.codePointAt(j);
			if (ca != cb) {
				return Integer.compare(ca, cb);
			}
			i += Character.charCount(ca);
			j += Character.charCount(cb);
		}
		return Boolean.compare(i < a.length(), j < b.length());
	}

}
