package io.valueguard.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** A port nothing listens on right now, for instances that must know their port before they start. */
public final class FreePorts {

	private FreePorts() {
	}

	public static int next() {
		try (ServerSocket socket = new ServerSocket(0)) {
			return socket.getLocalPort();
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
