package io.valueguard.support;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

class GcLogTests {

	// lines as G1 on Java 17 writes them at -Xlog:gc,safepoint with the time and uptime decorators
	private static final List<String> G1 = List.of("[2026-12-05T19:16:21.133+0000][0.010s] Using G1",
			"[2026-12-05T19:16:24.074+0000][2.952s] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 128M->7M(386M) 28.989ms",
			"[2026-12-05T19:16:24.914+0000][3.791s] GC(1) Pause Young (Concurrent Start) (Metadata GC Threshold) 77M->9M(386M) 16.176ms",
			"[2026-12-05T19:16:24.914+0000][3.791s] GC(2) Concurrent Mark Cycle",
			"[2026-12-05T19:16:24.951+0000][3.828s] GC(2) Pause Remark 12M->12M(384M) 8.169ms",
			"[2026-12-05T19:16:24.952+0000][3.829s] GC(2) Pause Cleanup 12M->12M(384M) 0.006ms",
			"[2026-12-05T19:16:25.000+0000][3.878s] GC(2) Concurrent Mark Cycle 86.169ms",
			"[2026-12-05T19:16:25.100+0000][3.978s] Safepoint \"G1CollectForAllocation\", Time since last: 1 ns, "
					+ "Reaching safepoint: 2 ns, Cleanup: 3 ns, At safepoint: 40 ns, Total: 45 ns",
			"[2026-12-05T19:16:25.891+0000][4.768s] GC(3) Pause Young (Normal) (G1 Evacuation Pause) 128M->13M(384M) 56.609ms",
			"[2026-12-05T19:16:30.000+0000][8.877s] GC(4) Pause Full (G1 Compaction Pause) 380M->120M(1024M) 250.500ms");

	@Test
	void shouldCountEachKindOfPauseAndPassOverConcurrentPhasesAndSafepoints() {
		GcLog log = GcLog.parse(G1);

		assertThat(log.collector()).isEqualTo("G1");
		assertThat(log.pauses()).extracting(GcLog.Pause::kind)
			.containsExactly("Young", "Young", "Remark", "Cleanup", "Young", "Full");
		assertThat(log.youngCollections()).isEqualTo(3);
		assertThat(log.fullCollections()).isEqualTo(1);
		assertThat(log.pausedSeconds()).isCloseTo((28.989 + 16.176 + 8.169 + 0.006 + 56.609 + 250.5) / 1000,
				within(1e-9));
		assertThat(log.longestPauseMillis()).isEqualTo(250.5);
		assertThat(log.peakCommittedMib()).isEqualTo(1024);
	}

	@Test
	void shouldMeasureWhatWasAllocatedBetweenYoungCollectionsFromTheHeapLeftByThePauseBefore() {
		// 9 after the second young collection, 12 before the remark: 77 - 7 = 70, then 128 - 12 = 116
		assertThat(GcLog.parse(G1).medianAllocatedBetweenYoungMib()).isEqualTo(116);
		assertThat(GcLog.parse(G1.subList(0, 3)).medianAllocatedBetweenYoungMib()).isEqualTo(70);
	}

	@Test
	void shouldKeepThePausesOfAMeasuredStretch() {
		GcLog measured = GcLog.parse(G1)
			.between(Instant.parse("2026-12-05T19:16:24.951Z"), Instant.parse("2026-12-05T19:16:30Z"));

		// from the remark on, the full collection at the stretch's end left out
		assertThat(measured.pauses()).extracting(GcLog.Pause::kind).containsExactly("Remark", "Cleanup", "Young");
		assertThat(measured.collector()).isEqualTo("G1");
	}

	@Test
	void shouldReadSerialsPausesAndALogWithoutWallClockTime() {
		GcLog log = GcLog.parse(List.of("[0.004s] Using Serial",
				"[1.250s] GC(0) Pause Young (Allocation Failure) 279M->12M(989M) 10.123ms",
				"[9.500s] GC(1) Pause Full (Allocation Failure) 900M->310M(989M) 410.000ms"));

		assertThat(log.collector()).isEqualTo("Serial");
		assertThat(log.youngCollections()).isEqualTo(1);
		assertThat(log.fullCollections()).isEqualTo(1);
		assertThat(log.pauses()).allSatisfy((pause) -> assertThat(pause.at()).isNull());
		// with no time to cut by, nothing counts as within a measured stretch
		assertThat(log.between(Instant.EPOCH, Instant.now()).pauses()).isEmpty();
	}

	@Test
	void shouldSummarizeInOneLine() {
		assertThat(GcLog.parse(G1).summary()).isEqualTo("G1: 3 young and 1 full collections, 0.4 s paused, the longest "
				+ "251 ms; 116 MiB allocated between young collections (median); heap committed up to 1,024 MiB");
		assertThat(GcLog.parse(List.of("[0.01s] Using Z Garbage Collector")).summary())
			.isEqualTo("Z Garbage Collector: no pauses in the log");
	}

	@Test
	void shouldReadTheLogTheOptionWritesAndNothingWhenTheFileIsMissing(@TempDir Path folder) throws Exception {
		Path file = folder.resolve("instance-gc.log");
		assertThat(GcLog.option(file)).isEqualTo("-Xlog:gc:file=" + file.toAbsolutePath() + ":time,uptime");
		assertThat(GcLog.read(file).pauses()).isEmpty();

		Files.write(file, G1);
		assertThat(GcLog.read(file)).isEqualTo(GcLog.parse(G1));
	}

}
