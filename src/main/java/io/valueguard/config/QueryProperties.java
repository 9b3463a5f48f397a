package io.valueguard.config;

import java.time.Duration;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How lookups are routed between instances, under {@code valueguard.query.*}.
 *
 * @param retryBudget how long a lookup keeps retrying through a rebalance, a restore or an unreachable host before
 * answering 503; a lookup forwarded to another instance waits for its answer no longer than the budget has left
 * @param retryBackoff pause between attempts
 * @param connectTimeout connect timeout of calls to other instances
 * @param readTimeout read timeout of calls to other instances
 * @param remoteCacheTtl how long answers forwarded from other instances are cached; 0 turns the cache off
 * @param remoteCacheSize most answers the cache keeps
 * @param lagRefreshInterval how often local store lags are read from Kafka Streams
 * @param maxPageSize the largest {@code limit} a listing accepts
 * @param maxWait the longest {@code ?wait=} a synchronous claim or release may ask for
 * @param maxBatchSize the most keys or values one batch lookup may ask for
 * @param maxWaiting the most synchronous claims and releases ({@code ?wait=}) that may wait at once; a waiting request
 * holds its connection and an entry in the rulings loop's batches, not a request thread; beyond it a write is still
 * published and answered 202 at once
 * @param peerSslBundle the Spring SSL bundle ({@code spring.ssl.bundle.*}) whose trust material verifies the other
 * instances: with it, instances call each other over https, and only peers whose certificate it trusts and whose name
 * matches their advertised host are asked; unset, over plain http
 * @param internalPort a port of its own for the instance protocol ({@code /internal/*}), the same on every instance:
 * set, instances call each other there, it answers nothing else, and the API port no longer answers the protocol, so
 * that a NetworkPolicy can keep the protocol to the instances while the API is open to clients (with
 * {@code server.ssl} it takes the same certificate); unset, the protocol shares the API port
 */
@ConfigurationProperties("valueguard.query")
@Validated
public record QueryProperties(@DefaultValue("5s") Duration retryBudget, @DefaultValue("100ms") Duration retryBackoff,
		@DefaultValue("1s") Duration connectTimeout, @DefaultValue("3s") Duration readTimeout,
		@DefaultValue("0s") Duration remoteCacheTtl, @DefaultValue("10000") @Min(1) int remoteCacheSize,
		@DefaultValue("1s") Duration lagRefreshInterval, @DefaultValue("1000") @Min(1) @Max(100_000) int maxPageSize,
		@DefaultValue("30s") Duration maxWait, @DefaultValue("1000") @Min(1) @Max(100_000) int maxBatchSize,
		@DefaultValue("1000") @Min(0) int maxWaiting, @Nullable String peerSslBundle,
		@Nullable @Min(1) @Max(65535) Integer internalPort) {

}
