package dev.sluice.loadtest.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SoakReportTest {

  @TempDir
  Path out;

  private static final long MIB = 1024 * 1024;

  /** A run of {@code minutes}, sampled every 10 s, heap growing {@code heapMibPerMinute}. */
  private static List<SoakSample> run(int minutes, double heapMibPerMinute) {
    List<SoakSample> samples = new ArrayList<>();
    for (int i = 0; i <= minutes * 6; i++) {
      double seconds = 10.0 * i;
      long heap = (long) ((16 + heapMibPerMinute * seconds / 60) * MIB);
      samples.add(new SoakSample(
          seconds,
          List.of(
              new SoakSample.Node(heap, 38, 1, 0, 1), new SoakSample.Node(16 * MIB, 39, 0, 1, 1)),
          2 * MIB,
          1_200));
    }
    return samples;
  }

  private static SoakSample idleEnd() {
    return new SoakSample(
        905,
        List.of(
            new SoakSample.Node(16 * MIB, 38, 0, 0, 0), new SoakSample.Node(16 * MIB, 38, 0, 0, 0)),
        2 * MIB,
        1);
  }

  @Test
  void aFlatRunThatEndsIdleSeesNoLeak() {
    SoakReport report = new SoakReport(
        Duration.ofMinutes(15),
        run(15, 0),
        idleEnd(),
        Map.of("history 200", 40_000L, "history 429", 5_000L, "transcode 504", 3L));

    assertThat(report.trends()).extracting(Trend::verdict).containsOnly(Trend.FLAT);
    assertThat(report.verdict()).isEqualTo("no leak seen");
  }

  @Test
  void aGrowingHeapIsNamed() {
    SoakReport report = new SoakReport(Duration.ofMinutes(15), run(15, 1), idleEnd(), Map.of());

    assertThat(report.verdict()).isEqualTo("heap after GC, node 1 rising");
  }

  @Test
  void workLeftAfterTheLoadIsNamed() {
    SoakSample busy = new SoakSample(
        905,
        List.of(
            new SoakSample.Node(16 * MIB, 38, 0, 0, 2), new SoakSample.Node(16 * MIB, 38, 0, 0, 2)),
        2 * MIB,
        3);

    assertThat(new SoakReport(Duration.ofMinutes(15), run(15, 0), busy, Map.of()).verdict())
        .isEqualTo("in-flight, queued or leases not back to 0 after the load");
  }

  @Test
  void serverErrorsAndLostConnectionsAreFailuresButTimeoutsAndHangUpsAreNot() {
    SoakReport report = new SoakReport(
        Duration.ofMinutes(15),
        run(15, 0),
        idleEnd(),
        Map.of(
            "transcode 500",
            2L,
            "history connection error",
            1L,
            "transcode 504",
            7L,
            "transcode (hangs up) hung up",
            9L,
            "history 429",
            5L));

    assertThat(report.failures()).isEqualTo(3);
    assertThat(report.verdict()).contains("3 requests failed");
  }

  @Test
  void theWarmUpIsLeftOutOfTheTrendsWhenEnoughRemains() {
    List<SoakSample> samples = new ArrayList<>(run(15, 0));
    // the first minute: the heap fills up while classes load and the JIT works
    for (int i = 0; i < 6; i++) {
      SoakSample s = samples.get(i);
      samples.set(
          i,
          new SoakSample(
              s.seconds(),
              List.of(
                  new SoakSample.Node((long) (4 + 2 * i) * MIB, 38, 0, 0, 0),
                  s.nodes().get(1)),
              s.redisUsedMemory(),
              s.redisKeys()));
    }

    SoakReport report = new SoakReport(Duration.ofMinutes(15), samples, idleEnd(), Map.of());

    assertThat(report.steady()).allMatch(s -> s.seconds() >= 60);
    assertThat(report.verdict()).isEqualTo("no leak seen");
  }

  @Test
  void aSmokeRunSaysItHasTooFewSamples() {
    // 30 s: four samples make a line, but all of them are warm-up
    SoakReport report =
        new SoakReport(Duration.ofSeconds(30), run(15, 0).subList(0, 4), idleEnd(), Map.of());

    assertThat(report.verdict())
        .isEqualTo("too few samples after the first minute for a trend " + "(sampled every 10 s)");
  }

  @Test
  void theReportAndSummaryAreWritten() throws Exception {
    Path written = new SoakReport(
            Duration.ofMinutes(15), run(15, 0), idleEnd(), Map.of("history 200", 1L))
        .write(out);

    assertThat(Files.readString(written))
        .contains("<p class=\"verdict met\">no leak seen</p>")
        .contains("heap after GC, node 2")
        .contains("Redis keys");
    assertThat(Files.readString(out.resolve("summary.json")))
        .contains("\"verdict\" : \"no leak seen\"");
  }
}
