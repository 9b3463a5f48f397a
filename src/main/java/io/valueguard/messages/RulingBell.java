package io.valueguard.messages;

/**
 * Rung by a stage when it has applied a record whose outcome a synchronous write ({@code ?wait=}) may be waiting
 * for: a command or a release someone waits for, or verdicts that changed a key. Whoever looks up rulings for the
 * waiting requests then looks at once rather than at its next poll. A hint only: a ruling made on another instance
 * rings there, not where its caller waits, so the looking must not depend on it. Rung on stream threads: the
 * listener must be cheap and must not block.
 */
public final class RulingBell {

	private volatile Runnable listener = () -> {
	};

	/** The stage applied something a caller may be waiting for. */
	public void ring() {
		this.listener.run();
	}

	/** From now on {@code listener} hears the bell, instead of whoever heard it before. */
	public void listen(Runnable listener) {
		this.listener = listener;
	}

}
