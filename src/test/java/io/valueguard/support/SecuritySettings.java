package io.valueguard.support;

import java.time.Duration;
import java.util.List;

import io.valueguard.config.SecurityProperties;
import org.jspecify.annotations.Nullable;

/** {@code valueguard.security.*} as tests need it, with the defaults of the settings record. */
public final class SecuritySettings {

	/** A secret of the length the settings ask for. */
	public static final String SECRET = "test-internal-secret-of-32-chars-or-more";

	private SecuritySettings() {
	}

	/** No API credentials; instances sign their requests to each other with {@code internalSecret}, if not null. */
	public static SecurityProperties open(@Nullable String internalSecret) {
		return new SecurityProperties(false, new SecurityProperties.Authorities("SCOPE_valueguard.read",
				"SCOPE_valueguard.write", "SCOPE_valueguard.admin"), null, List.of(), internalSecret,
				Duration.ofSeconds(30), true, Duration.ofMinutes(1), Duration.ofMinutes(5));
	}

}
