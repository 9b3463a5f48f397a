package io.valueguard.support;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.valueguard.kafka.LocalKafkaBroker;
import org.slf4j.LoggerFactory;

/**
 * Apache Kafka's own KRaft server in a JVM of its own, so that fault tests can kill it with SIGKILL or pause it with
 * SIGSTOP. Arguments: broker port, controller port, log directory (kept between restarts).
 */
public final class BrokerMain {

	private BrokerMain() {
	}

	public static void main(String[] args) throws InterruptedException {
		((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
		new LocalKafkaBroker(Integer.parseInt(args[0]), Integer.parseInt(args[1]), Path.of(args[2])).start();
		System.out.println("BROKER STARTED");
		new CountDownLatch(1).await();
	}

}
