package io.valueguard.routing;

import org.apache.kafka.streams.state.HostInfo;

final class Hosts {

	private Hosts() {
	}

	/** {@code host:port}, as {@code application.server} spells it. */
	static String name(HostInfo host) {
		return host.host() + ":" + host.port();
	}

}
