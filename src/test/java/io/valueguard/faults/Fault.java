package io.valueguard.faults;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.valueguard.support.BrokerProcess;
import io.valueguard.support.InstanceProcess;
import org.jspecify.annotations.Nullable;

import static org.awaitility.Awaitility.await;

/** One fault of the suite, on the broker or on one instance, and how it ends. */
record Fault(Kind kind, int instance) {

	enum Kind {

		/** SIGKILL, restarted at once on the same state directory. */
		KILL_INSTANCE,
		/** SIGKILL, restarted at once on a wiped state directory, as on a new node. */
		KILL_INSTANCE_WIPED,
		/** SIGSTOP for longer than the session timeout, then SIGCONT. */
		PAUSE_INSTANCE,
		/** SIGKILL of the broker, restarted after 3 s. */
		KILL_BROKER,
		/** SIGSTOP of the broker for 20 s, then SIGCONT. */
		PAUSE_BROKER,
		/** SIGKILL of the broker, restarted after 60 s: an outage of the whole cluster. */
		BROKER_OUTAGE,
		/**
		 * SIGKILL, restarted 30 s later on a wiped state directory: a node lost and its pod scheduled elsewhere on a new
		 * volume. Unlike the other kills, the others take its tasks over at its session timeout, from a process that
		 * left its transactions open. Only when named in {@code valueguard.faults.kinds}.
		 */
		LOSE_INSTANCE

	}

	// Every kind once in the first six. The short suite of ./mvnw verify runs the first five: a wiped restart is what
	// any restart after SIGKILL is under exactly-once (no checkpoint, so Kafka Streams restores the stores from
	// scratch), and the long suite runs it as a kind of its own.
	private static final List<Kind> ROUND = List.of(Kind.KILL_INSTANCE, Kind.KILL_BROKER, Kind.PAUSE_BROKER,
			Kind.PAUSE_INSTANCE, Kind.BROKER_OUTAGE, Kind.KILL_INSTANCE_WIPED, Kind.KILL_INSTANCE,
			Kind.KILL_INSTANCE_WIPED, Kind.PAUSE_INSTANCE, Kind.KILL_BROKER);

	/** {@code count} faults: rounds of every kind (instance kills half of them wiped), each on a random instance. */
	static List<Fault> plan(int count, Random random) {
		return plan(count, ROUND, random);
	}

	/** {@code count} faults of the given kinds, in turn, each on a random instance: to study one kind on its own. */
	static List<Fault> plan(int count, List<Kind> kinds, Random random) {
		if (kinds.isEmpty()) {
			throw new IllegalArgumentException("No kind of fault to plan");
		}
		List<Fault> plan = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			plan.add(new Fault(kinds.get(i % kinds.size()), random.nextInt(3)));
		}
		return plan;
	}

	/** The kinds named in {@code names} (comma-separated, as {@link Kind} spells them), or every kind when blank. */
	static List<Kind> kinds(String names) {
		if (names.isBlank()) {
			return ROUND;
		}
		List<Kind> kinds = new ArrayList<>();
		for (String name : names.split(",")) {
			kinds.add(Kind.valueOf(name.strip()));
		}
		return kinds;
	}

	String describe(List<InstanceProcess> instances) {
		return switch (this.kind) {
			case KILL_INSTANCE -> "SIGKILL " + instances.get(this.instance).name() + ", restart";
			case KILL_INSTANCE_WIPED -> "SIGKILL " + instances.get(this.instance).name() + ", wipe state, restart";
			case PAUSE_INSTANCE -> "SIGSTOP " + instances.get(this.instance).name() + " for 15 s (session 10 s)";
			case LOSE_INSTANCE -> "SIGKILL " + instances.get(this.instance).name() + ", wipe state, restart after 30 s";
			case KILL_BROKER -> "SIGKILL broker, restart after 3 s";
			case PAUSE_BROKER -> "SIGSTOP broker for 20 s";
			case BROKER_OUTAGE -> "SIGKILL broker, restart after 60 s";
		};
	}

	/** The instance the fault strikes, or null when it strikes the broker. */
	@Nullable String struck(List<InstanceProcess> instances) {
		return switch (this.kind) {
			case KILL_INSTANCE, KILL_INSTANCE_WIPED, PAUSE_INSTANCE, LOSE_INSTANCE -> instances.get(this.instance).name();
			case KILL_BROKER, PAUSE_BROKER, BROKER_OUTAGE -> null;
		};
	}

	/** Strikes, and undoes what the fault's recovery needs from outside (a restart, a SIGCONT). */
	void inject(BrokerProcess broker, List<InstanceProcess> instances) {
		InstanceProcess target = instances.get(this.instance);
		switch (this.kind) {
			case KILL_INSTANCE -> {
				target.kill();
				target.start();
			}
			case KILL_INSTANCE_WIPED -> {
				target.kill();
				target.wipeState();
				target.start();
			}
			case LOSE_INSTANCE -> {
				target.kill();
				target.wipeState();
				pause(Duration.ofSeconds(30));
				target.start();
			}
			case PAUSE_INSTANCE -> {
				target.pause();
				pause(Duration.ofSeconds(15));
				target.resume();
			}
			case KILL_BROKER -> {
				broker.kill();
				pause(Duration.ofSeconds(3));
				broker.start();
			}
			case PAUSE_BROKER -> {
				broker.pause();
				pause(Duration.ofSeconds(20));
				broker.resume();
			}
			case BROKER_OUTAGE -> {
				broker.kill();
				pause(Duration.ofSeconds(60));
				broker.start();
			}
		}
	}

	private static void pause(Duration duration) {
		await().pollDelay(duration).atMost(duration.plusSeconds(5)).until(() -> true);
	}

}
