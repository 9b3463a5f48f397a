package io.valueguard.routing;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.util.Base64;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import io.valueguard.config.SecurityProperties;
import org.jspecify.annotations.Nullable;

/**
 * The credential of the instance-to-instance protocol: an HMAC-SHA256 over the request's method, raw path, raw query,
 * a SHA-256 of its body and the time it was signed, keyed by {@code valueguard.security.internal-secret}, which every
 * instance shares. The receiving instance refuses a request without it, with a wrong one, or signed further from its
 * own clock than {@code valueguard.security.internal-window} (so that a captured request cannot be replayed later).
 * Every request of the protocol only reads, so a replay within the window learns nothing the original did not.
 */
public final class RequestSignature {

	/** The header that carries the signature: {@code t=<epoch millis>,s=<base64url of the MAC>}. */
	public static final String HEADER = "X-ValueGuard-Signature";

	private static final String ALGORITHM = "HmacSHA256";

	private static final byte[] NO_BODY = new byte[0];

	private final SecretKeySpec key;

	private final long windowMillis;

	private final Clock clock;

	RequestSignature(String secret, long windowMillis, Clock clock) {
		this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
		this.windowMillis = windowMillis;
		this.clock = clock;
	}

	/** The signature the settings ask for, or null when no internal secret is set. */
	public static @Nullable RequestSignature of(SecurityProperties security) {
		return (security.internalSecret() != null) ? new RequestSignature(security.internalSecret(),
				security.internalWindow().toMillis(), Clock.systemUTC()) : null;
	}

	/** The header value for a request signed now. */
	String sign(String method, String rawPath, @Nullable String rawQuery, byte @Nullable [] body) {
		long now = this.clock.millis();
		return "t=" + now + ",s=" + mac(method, rawPath, rawQuery, body, now);
	}

	/** Why the request is refused, or null when its signature is valid and recent. */
	@Nullable String refusal(@Nullable String header, String method, String rawPath, @Nullable String rawQuery,
			byte @Nullable [] body) {
		if (header == null) {
			return "A request between instances needs the " + HEADER + " header";
		}
		int comma = header.indexOf(",s=");
		if (!header.startsWith("t=") || comma < 0) {
			return "The " + HEADER + " header is malformed";
		}
		long signedAt;
		try {
			signedAt = Long.parseLong(header.substring(2, comma));
		}
		catch (NumberFormatException ex) {
			return "The " + HEADER + " header is malformed";
		}
		if (Math.abs(this.clock.millis() - signedAt) > this.windowMillis) {
			return "The signature is more than " + this.windowMillis + " ms away from this instance's clock";
		}
		byte[] expected = mac(method, rawPath, rawQuery, body, signedAt).getBytes(StandardCharsets.US_ASCII);
		byte[] given = header.substring(comma + 3).getBytes(StandardCharsets.US_ASCII);
		return MessageDigest.isEqual(expected, given) ? null : "The signature does not match the request";
	}

	private String mac(String method, String rawPath, @Nullable String rawQuery, byte @Nullable [] body,
			long signedAt) {
		try {
			byte[] bodyHash = MessageDigest.getInstance("SHA-256").digest(Objects.requireNonNullElse(body, NO_BODY));
			String canonical = method + '\n' + rawPath + '\n' + Objects.requireNonNullElse(rawQuery, "") + '\n'
					+ signedAt + '\n' + Base64.getUrlEncoder().withoutPadding().encodeToString(bodyHash);
			// a Mac is not thread-safe, and a new one per request costs less than contention over one
			Mac mac = Mac.getInstance(ALGORITHM);
			mac.init(this.key);
			return Base64.getUrlEncoder()
				.withoutPadding()
				.encodeToString(mac.doFinal(canonical.getBytes(StandardCharsets.UTF_8)));
		}
		catch (GeneralSecurityException ex) {
			throw new IllegalStateException("HmacSHA256 and SHA-256 are part of every Java runtime", ex);
		}
	}

}
