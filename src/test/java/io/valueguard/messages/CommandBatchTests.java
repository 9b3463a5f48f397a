package io.valueguard.messages;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import io.valueguard.config.ClaimPolicy;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
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

	@Test
	void shouldNameTheRuleOfTheKeyStageThatSentIt() {
		for (ClaimPolicy rule : ClaimPolicy.values()) {
			Headers headers = CommandBatch.headers(false, rule);
			assertThat(CommandBatch.ruleOf(headers, ClaimPolicy.LATEST_WINS)).isEqualTo(rule);
			assertThat(CommandBatch.ruleOf(headers, ClaimPolicy.FIRST_WINS)).isEqualTo(rule);
		}
	}

	@Test
	void shouldLeaveTheRuleToTheValueStageWhenTheBatchNamesNoneItKnows() {
		// a batch of a version before the header, or of a later one with a rule this version does not know
		Headers unnamed = new RecordHeaders();
		Headers unknown = new RecordHeaders().add(CommandBatch.RULE, "EARLIEST_WINS".getBytes(StandardCharsets.UTF_8));
		Headers empty = new RecordHeaders().add(CommandBatch.RULE, null);

		for (Headers headers : List.of(unnamed, unknown, empty)) {
			assertThat(CommandBatch.ruleOf(headers, ClaimPolicy.FIRST_WINS)).isEqualTo(ClaimPolicy.FIRST_WINS);
			assertThat(CommandBatch.ruleOf(headers, ClaimPolicy.LATEST_WINS)).isEqualTo(ClaimPolicy.LATEST_WINS);
		}
	}

}
