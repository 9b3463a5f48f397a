package io.valueguard.faults;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import io.valueguard.support.InstanceProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

class NeverClearedOffsetsTests {

	@TempDir
	Path work;

	@Test
	void shouldFindEachDiagnosisWrittenSinceTheLastLookOnce() throws Exception {
		InstanceProcess instance = new InstanceProcess("vg-a", this.work, "localhost:9092", List.of());
		String earlier = "WARN Stage valueguard-keys ... and no transaction is open on __consumer_offsets-27 (before)\n";
		Files.writeString(instance.logFile(), earlier);
		NeverClearedOffsets diagnoses = new NeverClearedOffsets(List.of(instance));

		assertThat(diagnoses.since(List.of(instance))).isEmpty();

		Files.writeString(instance.logFile(), "INFO something else\nWARN Stage valueguard-keys has not been RUNNING "
				+ "for 75 s: ... and no transaction is open on __consumer_offsets-27 to clear them\n",
				StandardOpenOption.APPEND);

		assertThat(diagnoses.since(List.of(instance))).singleElement()
			.satisfies((line) -> assertThat(line).startsWith("vg-a: WARN Stage valueguard-keys has not been RUNNING")
				.doesNotContain("(before)"));
		assertThat(diagnoses.since(List.of(instance))).isEmpty();
	}

}
