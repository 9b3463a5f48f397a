package io.valueguard.support;

import java.nio.file.Path;
import java.time.Duration;

import io.valueguard.ValueGuardApplication;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.awaitility.Awaitility.await;

/**
 * A ValueGuard instance in the test JVM on topics of its own ({@link ServiceArguments}), on a free port, started and
 * ready to answer; closing it stops it as a SIGTERM would.
 */
public final class ServiceInstance implements AutoCloseable {

	private final ConfigurableApplicationContext context;

	private final int port;

	private ServiceInstance(ConfigurableApplicationContext context, int port) {
		this.context = context;
		this.port = port;
	}

	/** Starts an instance and waits up to {@code patience} for its readiness; {@code more} arguments as given. */
	public static ServiceInstance start(String id, String bootstrapServers, Path state, Duration patience,
			String... more) {
		ServiceInstance instance = launch(id, bootstrapServers, state, more);
		ApiClient api = instance.api();
		await("ready").atMost(patience).until(() -> api.get("/actuator/health/readiness").status() == 200);
		return instance;
	}

	/** Starts an instance without waiting for its readiness, for tests of what keeps it from getting ready. */
	public static ServiceInstance launch(String id, String bootstrapServers, Path state, String... more) {
		int port = FreePorts.next();
		return new ServiceInstance(new SpringApplicationBuilder(ValueGuardApplication.class)
			.run(ServiceArguments.onTopicsOf(id, bootstrapServers, state, port, more)), port);
	}

	public int port() {
		return this.port;
	}

	/** A client of the instance's API. */
	public ApiClient api() {
		return new ApiClient(this.port);
	}

	@Override
	public void close() {
		this.context.close();
	}

}
