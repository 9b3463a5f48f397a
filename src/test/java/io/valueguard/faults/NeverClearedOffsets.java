package io.valueguard.faults;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.valueguard.support.InstanceProcess;

/**
 * The instances' own diagnosis of a stage waiting for committed offsets no open transaction will clear (their
 * {@code OffsetsWatch} WARN): Kafka's group coordinator serving a group from a partial load after a broker restart,
 * which does not heal until an operator restarts the broker (docs/reliability.md). Reads only what each log gained
 * since the last look.
 */
final class NeverClearedOffsets {

	/** What the WARN says when no transaction is open to clear the held-back offsets. */
	static final String MARK = "and no transaction is open on";

	private final Map<String, Long> read = new HashMap<>();

	/** Starts reading each log at its end now: what came before was seen, or belongs to an earlier wait. */
	NeverClearedOffsets(List<InstanceProcess> instances) {
		for (InstanceProcess instance : instances) {
			this.read.put(instance.name(), size(instance));
		}
	}

	/** The diagnoses written since the last look, one line each, prefixed with the instance's name. */
	List<String> since(List<InstanceProcess> instances) {
		List<String> found = new ArrayList<>();
		for (InstanceProcess instance : instances) {
			long from = this.read.getOrDefault(instance.name(), 0L);
			try (RandomAccessFile log = new RandomAccessFile(instance.logFile().toFile(), "r")) {
				long to = log.length();
				if (to <= from) {
					continue;
				}
				byte[] gained = new byte[(int) Math.min(to - from, Integer.MAX_VALUE - 8)];
				log.seek(from);
				log.readFully(gained);
				this.read.put(instance.name(), from + gained.length);
				new String(gained, StandardCharsets.UTF_8).lines()
					.filter((line) -> line.contains(MARK))
					.forEach((line) -> found.add(instance.name() + ": " + line.strip()));
			}
			catch (IOException ex) {
				throw new UncheckedIOException(ex);
			}
		}
		return found;
	}

	private static long size(InstanceProcess instance) {
		try {
			return Files.exists(instance.logFile()) ? Files.size(instance.logFile()) : 0;
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

}
