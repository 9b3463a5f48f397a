package io.valueguard.routing;

/** A value and the key that owns it, with the effective timestamp of the owning claim (epoch milliseconds). */
public record OwnerView(String value, String key, long timestamp) {

}
