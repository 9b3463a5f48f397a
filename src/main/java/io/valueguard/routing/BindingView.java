package io.valueguard.routing;

/** A key and the value it holds, with the effective timestamp of its claim (epoch milliseconds). */
public record BindingView(String key, String value, long timestamp) {

}
