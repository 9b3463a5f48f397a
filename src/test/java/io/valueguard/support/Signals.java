package io.valueguard.support;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * POSIX signals to child processes: the faults that a JVM cannot inflict on itself (SIGSTOP, SIGCONT, SIGKILL), and
 * SIGQUIT for a child's thread dump.
 */
public final class Signals {

	private Signals() {
	}

	public static void pause(Process process) {
		send(process, "STOP");
	}

	public static void resume(Process process) {
		send(process, "CONT");
	}

	/** SIGQUIT: a JVM writes every thread's stack to its standard output and runs on. */
	public static void dumpThreads(Process process) {
		send(process, "QUIT");
	}

	/** SIGKILL, and wait until the process is gone: no shutdown hook runs, nothing is flushed or closed. */
	public static void kill(Process process) {
		if (!process.isAlive()) {
			return;
		}
		send(process, "KILL");
		try {
			if (!process.waitFor(30, TimeUnit.SECONDS)) {
				throw new IllegalStateException("Process " + process.pid() + " survived SIGKILL");
			}
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static void send(Process process, String signal) {
		try {
			Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid())).inheritIO().start();
			if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
				throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
			}
		}
		catch (IOException ex) {
			throw new IllegalStateException("Cannot run kill", ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
