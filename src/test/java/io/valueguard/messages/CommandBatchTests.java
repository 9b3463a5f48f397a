package io.valueguard.messages;

import java.util.List;
import java.util.Optional;
import java.util.Set;

import org.apache.kafka.streams.processor.StreamPartitioner;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class CommandBatchTests {

	private final CommandBatch batch = new CommandBatch(2,
			List.of(new CommandBatch.Entry("v", OwnerCommand.release("a", 300, 0)),
					new CommandBatch.Entry("w", OwnerCommand.claim("a", 400, 0))));

	@Test
	void shouldGoToThePartitionItWasMadeFor() {
		StreamPartitioner<String, CommandBatch> partitioner = CommandBatch.partitioner(6);

		assertThat(partitioner.partitions("commands", null, this.batch, 6)).isEqualTo(Optional.of(Set.of(2)));
	}

	/** Values grouped for 6 partitions must not land on a topic that has 8 now: lookups would not find them. */
	@Test
	void shouldStopTheStreamWhenThePartitionCountChanged() {
		StreamPartitioner<String, CommandBatch> partitioner = CommandBatch.partitioner(6);

		assertThatIllegalStateException().isThrownBy(() -> partitioner.partitions("commands", null, this.batch, 8))
			.withMessageContaining("Topic 'commands' has 8 partitions, but ValueGuard started with 6");
	}

}
