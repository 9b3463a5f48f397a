package io.valueguard.config;

import java.time.Duration;

import jakarta.validation.constraints.Min;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * When this instance may take traffic, under {@code valueguard.readiness.*}.
 *
 * @param maxRestoreLag how many records each active store partition may still be behind its changelog
 * @param maxLagAge how old the last lag reading may be before readiness stops trusting it
 */
@ConfigurationProperties("valueguard.readiness")
@Validated
public record ReadinessProperties(@DefaultValue("1000") @Min(0) long maxRestoreLag,
		@DefaultValue("10s") Duration maxLagAge) {

}
