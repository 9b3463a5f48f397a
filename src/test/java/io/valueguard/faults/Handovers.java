package io.valueguard.faults;

import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;

/**
 * How long partitions that moved between instances waited for their new owner, read from the instances' logs (the
 * suite logs the consumers' coordinators at INFO). Under cooperative rebalancing an instance first gives a moving
 * partition up and rejoins; the partition gets its new owner only in the group's next generation, which waits until
 * every member has rejoined. Meanwhile it has no active task anywhere, and strict lookups of its keys fail. The gap
 * counted is the giving instance's, from its revocation to its sync of the next generation; the new owner then still
 * restores what it lacks.
 * @param gaps every revocation's wait, longest last
 */
record Handovers(List<Gap> gaps) {

	/** One revocation: where, in which group, when it ended, how long it took. */
	record Gap(String instance, String group, String syncedAt, Duration length) {

	}

	private static final Pattern EVENT = Pattern.compile(
			"groupId=([\\w.-]+)\\] (Request joining group due to: need to revoke|Successfully synced group)");

	/** Reads each instance's log (restarts of its process included), by instance name. */
	static Handovers in(Map<String, String> logs) {
		List<Gap> gaps = new ArrayList<>();
		logs.forEach((instance, log) -> {
			Map<String, LocalDateTime> revokedAt = new HashMap<>();
			for (String line : log.lines().toList()) {
				if (line.startsWith("--- start ")) {
					// a new process: the old one's revocations ended with it
					revokedAt.clear();
					continue;
				}
				Matcher event = EVENT.matcher(line);
				@Nullable LocalDateTime at = event.find() ? time(line) : null;
				if (at == null) {
					continue;
				}
				if (event.group(2).startsWith("Request")) {
					revokedAt.putIfAbsent(event.group(1), at);
				}
				else {
					LocalDateTime revoked = revokedAt.remove(event.group(1));
					if (revoked != null) {
						gaps.add(new Gap(instance, event.group(1), line.substring(11, 23),
								Duration.between(revoked, at)));
					}
				}
			}
		});
		gaps.sort(Comparator.comparing(Gap::length));
		return new Handovers(List.copyOf(gaps));
	}

	/** A line's time: Spring Boot's ISO-8601 prefix (UTC in the suite); null on a line without one. */
	private static @Nullable LocalDateTime time(String line) {
		try {
			return LocalDateTime.parse(line.substring(0, 23));
		}
		catch (RuntimeException ex) {
			return null;
		}
	}

	/** "N, median M s, longest L s (instance, group, at)": for the report. */
	String summary() {
		if (this.gaps.isEmpty()) {
			return "none";
		}
		Gap longest = this.gaps.get(this.gaps.size() - 1);
		return this.gaps.size() + ", median " + seconds(this.gaps.get(this.gaps.size() / 2).length()) + ", longest "
				+ seconds(longest.length()) + " (" + longest.instance() + ", " + longest.group() + ", synced at "
				+ longest.syncedAt() + " UTC)";
	}

	private static String seconds(Duration length) {
		return String.format(java.util.Locale.ROOT, "%.2f s", length.toMillis() / 1000.0);
	}

}
