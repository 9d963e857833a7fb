package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.engine.PushbackCheck;
import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import dev.sluice.loadtest.sampling.Spread;
import dev.sluice.loadtest.sampling.ThreadCount;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The gRPC door's headlines: threads, fast refusals, admitted p99, retries after the pushback. */
class DoorVerdictTest {

  private static final ThreadCount.Range UNLOADED = new ThreadCount.Range(20, 40, 41, 42);

  private static RunFigures figures(double fastShare, double p99OverUnloaded) {
    Spread cpu = new Spread(10, 70, 3, 66, 74);
    return new RunFigures(
        2,
        10,
        new RunFigures.Counts(250, 40, 200, 10, 0),
        4,
        0.8,
        1.1,
        1.1,
        new RunFigures.Latency(40, 500, 700),
        p99OverUnloaded,
        Map.of(),
        3,
        20,
        fastShare,
        Map.of(),
        cpu,
        cpu,
        cpu,
        400,
        0.9);
  }

  private static PushbackCheck pushback(int checked, int early, double slack) {
    return new PushbackCheck(10, 10 + checked, checked, slack, List.of(), early, Map.of("OK", 10));
  }

  private static SweepResult run(
      String variant,
      double point,
      int maxThreads,
      int inFlightMax,
      double fastShare,
      double p99OverUnloaded,
      PushbackCheck check) {
    DoorFigures door = new DoorFigures(
        UNLOADED, new ThreadCount.Range(200, 41, 50, maxThreads), inFlightMax, 40, 1.25, check);
    return new SweepResult(
        "long400",
        variant,
        "",
        point,
        5 * point,
        figures(fastShare, p99OverUnloaded),
        "",
        null,
        null,
        door);
  }

  private static Verdict line(List<Verdict> verdicts, String part) {
    return verdicts.stream().filter(v -> v.text().contains(part)).findFirst().orElseThrow();
  }

  @Test
  void threadsWithinUnloadedPlusRunningJobsPlusTheSlackMeetTheAim() {
    // ceiling 42 + 6 + 8 = 56: 56 is within, 57 is not
    List<Verdict> met = DoorVerdict.of(
        List.of("long400"),
        List.of(
            run("fifo", 5, 56, 6, 0.99, 30, pushback(3, 0, 2)),
            run("standing", 5, 50, 6, 0.99, 1.5, pushback(3, 0, 2))));
    List<Verdict> missed = DoorVerdict.of(
        List.of("long400"),
        List.of(
            run("fifo", 5, 57, 6, 0.99, 30, pushback(3, 0, 2)),
            run("standing", 5, 50, 6, 0.99, 1.5, pushback(3, 0, 2))));

    Verdict threads = line(met, "thread count");
    assertThat(threads.outcome()).isEqualTo(Outcome.MET);
    assertThat(threads.text())
        .startsWith("long400 jobs over gRPC at 5x, thread count <= unloaded + jobs running at once"
            + " + 8 (queued calls hold no thread): met by fifo (max 56 against 42 + 6 + 8 = 56;"
            + " up to 40 queued)");
    // every variant must keep its threads flat: one that does not misses the aim
    assertThat(line(missed, "thread count").outcome()).isEqualTo(Outcome.MISSED);
    assertThat(line(missed, "thread count").text()).contains("missed by fifo (max 57");
  }

  @Test
  void theAdmittedP99IsJudgedOnTheStandingQueueAndFastRefusalsOnAnyVariant() {
    List<Verdict> verdicts = DoorVerdict.of(
        List.of("long400"),
        List.of(
            run("fifo", 5, 50, 6, 0.97, 30, pushback(3, 0, 2)),
            run("standing", 5, 50, 6, 0.80, 2.5, pushback(3, 0, 2))));

    Verdict p99 = line(verdicts, "admitted p99");
    assertThat(p99.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(p99.text()).endsWith(": missed by standing (2.5x)");
    Verdict fast = line(verdicts, "refusals within 50 ms");
    assertThat(fast.outcome()).isEqualTo(Outcome.MET);
    assertThat(fast.text()).endsWith(": met by fifo (97%); missed by standing (80%)");
  }

  @Test
  void anEarlyRetryMissesThePushbackAimAndNoRetryLeavesItUnmeasured() {
    List<Verdict> early = DoorVerdict.of(
        List.of("long400"),
        List.of(
            run("fifo", 5, 50, 6, 0.97, 30, pushback(4, 0, 3)),
            run("standing", 5, 50, 6, 0.97, 1.5, pushback(4, 1, -120))));
    List<Verdict> none = DoorVerdict.of(
        List.of("long400"),
        List.of(run("standing", 5, 50, 6, 0.97, 1.5, pushback(0, 0, Double.NaN))));

    Verdict pushback = line(early, "pushback");
    assertThat(pushback.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(pushback.text())
        .contains("missed by standing (4 retries after a pushback, 1 early, least slack -120 ms)");
    assertThat(line(none, "pushback").outcome()).isEqualTo(Outcome.NOT_MEASURED);
  }

  @Test
  void withoutARunAt5xEveryAimIsNotMeasuredAndSaysWhy() {
    List<Verdict> verdicts = DoorVerdict.of(
        List.of("long400"), List.of(run("standing", 2, 50, 6, 0.97, 1.5, pushback(3, 0, 2))));

    assertThat(verdicts).hasSize(4).allSatisfy(v -> {
      assertThat(v.outcome()).isEqualTo(Outcome.NOT_MEASURED);
      assertThat(v.text()).contains("no run at 5x: add it to --points");
    });
  }

  @Test
  void theReportShowsTheDoorsTableAndItsVerdicts() {
    List<SweepResult> sweep = List.of(run("standing", 5, 50, 6, 0.97, 1.5, pushback(3, 0, 2)));
    Capacity capacity = new Capacity("long400", 2, 5, 5, 410, 430, 10, Double.NaN);

    String html = HtmlRenderer.render(OverloadReport.of(
            3,
            "0.1",
            "0.2",
            Map.of("long400", capacity),
            sweep,
            List.of(),
            OverloadReport.verdicts(
                Map.of("long400", capacity),
                sweep,
                List.of(),
                DoorVerdict.of(List.of("long400"), sweep)))
        .build());

    assertThat(html)
        .contains("gRPC door: threads and pushback")
        .contains("40 / 41 / 42")
        .contains("41 / 50 / 50")
        .contains("long400 jobs over gRPC at 5x");
  }
}
