package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.sampling.ServerSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The sweep's figures and targets from made-up answers and samples (no service). */
class RunFiguresTest {

  /** 100 jobs/s measured on 2 cores, 70/s at the target; unloaded p99 25 ms. */
  static final Capacity CAPACITY = new Capacity("short", 2, 100, 100, 21, 25, 100, Double.NaN);

  /**
   * A 10 s run: each second 70 jobs admitted in 30 ms (one in 45 ms) and 30 rejected in 5 ms, but
   * the first 2 s, the warm-up, admit in 500 ms and reject in 900 ms.
   */
  static List<Answer> answers() {
    List<Answer> answers = new ArrayList<>();
    for (int second = 0; second < 10; second++) {
      boolean warm = second < 2;
      for (int i = 0; i < 100; i++) {
        double sent = second + i / 100.0;
        boolean admitted = i < 70;
        double millis = warm ? (admitted ? 500 : 900) : admitted ? (i == 0 ? 45 : 30) : 5;
        answers.add(new Answer(
            i % 2 == 0 ? "short" : "long",
            sent,
            sent + millis / 1000,
            admitted ? 200 : 429,
            admitted ? null : "queue_full"));
      }
    }
    return answers;
  }

  static List<ServerSample> samples(double... cpu) {
    List<ServerSample> samples = new ArrayList<>();
    for (int s = 0; s < cpu.length; s++) {
      samples.add(new ServerSample(
          s + 0.01, cpu[s], 95, Map.of("transcode", new ServerSample.LimiterLoad(1, 2, 2))));
    }
    return samples;
  }

  @Test
  void figuresAreOverTheSteadyWindowOfIntendedSends() {
    List<ServerSample> samples = samples(100, 100, 66, 74, 66, 74, 66, 74, 66, 74, 5);

    RunFigures f = RunFigures.of(answers(), 1001, samples, 2, 10, CAPACITY, "transcode");

    assertThat(f.counts()).isEqualTo(new RunFigures.Counts(1001, 700, 300, 0, 1)); // one unanswered
    // completions in the window, by when they were answered: 70 a second, and the 20 of second 1
    // answered after 2 s: (560 + 20) / 8
    assertThat(f.goodputPerSecond()).isCloseTo(72.5, within(1e-9));
    assertThat(f.goodputOfTarget()).isCloseTo(72.5 / 70, within(1e-9));
    assertThat(f.goodputOfCapacity()).isCloseTo(0.725, within(1e-9));
    assertThat(f.admitted().n()).isEqualTo(560);
    assertThat(f.admitted().p50()).isCloseTo(30, within(1e-6));
    assertThat(f.admitted().p99()).isCloseTo(45, within(1e-6)); // 8 of 560 at 45 ms: above the 99th
    assertThat(f.admittedP99OverUnloaded()).isCloseTo(1.8, within(1e-6));
    assertThat(f.admittedP99BySize()).containsOnlyKeys("short", "long");
    assertThat(f.rejectedP50Millis()).isCloseTo(5, within(1e-6));
    assertThat(f.rejectedWithin50Share()).isEqualTo(1.0);
    assertThat(f.reasons()).containsExactly(Map.entry("429 queue_full", 300L));
    assertThat(f.processCpu().n()).isEqualTo(8);
    assertThat(f.processCpu().mean()).isCloseTo(70, within(1e-9));
    assertThat(f.processCpu().stddev()).isCloseTo(4, within(1e-9));
    assertThat(f.limit().mean()).isEqualTo(2);
  }

  @Test
  void lateRejectionsCountAgainstTheShareAnsweredWithin50ms() {
    List<Answer> answers = List.of(
        new Answer("short", 3, 3.010, 429, "queue_full"),
        new Answer("short", 3, 3.050, 429, "predicted_wait"),
        new Answer("short", 3, 3.120, 429, "standing_queue"),
        new Answer("short", 3, 13, 504, null),
        new Answer("short", 3, 3.02, 200, null));

    RunFigures f =
        RunFigures.of(answers, 5, samples(70, 70, 70, 70, 70), 2, 5, CAPACITY, "transcode");

    assertThat(f.rejectedWithin50Share()).isEqualTo(0.5); // 10 and 50 ms of 10, 50, 120 ms and 10 s
    assertThat(f.rejectedP95Millis()).isCloseTo(120, within(1e-6)); // of the 429s alone
    assertThat(f.counts().serverErrors()).isEqualTo(1);
    assertThat(f.reasons()).containsEntry("504", 1L).containsEntry("429 standing_queue", 1L);
  }

  @Test
  void eachTargetIsJudgedWhereItAppliesOnly() {
    List<ServerSample> samples = samples(100, 100, 66, 74, 66, 74, 66, 74, 66, 74, 5);
    RunFigures f = RunFigures.of(answers(), 1000, samples, 2, 10, CAPACITY, "transcode");

    SweepResult shortAt5 =
        new SweepResult("short", "standing", "", 5, 500, f, "", null, null, null);
    SweepResult shortAt1 =
        new SweepResult("short", "standing", "", 1, 100, f, "", null, null, null);
    SweepResult sizesAt2 =
        new SweepResult("sizes", "cost-declared", "", 2, 200, f, "", null, null, null);

    assertThat(OverloadTarget.GOODPUT.judge(shortAt5)).hasValue(true);
    assertThat(OverloadTarget.GOODPUT.judge(shortAt1)).isEmpty(); // 2x, 5x and 10x only
    assertThat(OverloadTarget.ADMITTED_P99.judge(shortAt5)).hasValue(true); // 1.8x
    assertThat(OverloadTarget.ADMITTED_P99.judge(sizesAt2)).isEmpty();
    assertThat(OverloadTarget.FAST_REJECTIONS.judge(sizesAt2)).hasValue(true);
    assertThat(OverloadTarget.FAST_REJECTIONS.judge(shortAt5)).isEmpty();
    assertThat(OverloadTarget.CPU_SPREAD.judge(sizesAt2)).hasValue(true); // sd 4
    assertThat(OverloadTarget.CPU_MEAN.judge(sizesAt2)).hasValue(true);
    assertThat(OverloadTarget.CPU_SPREAD.judge(shortAt5)).isEmpty(); // mixed sizes only
    assertThat(OverloadTarget.STEP_CPU.judge(shortAt5)).isEmpty();

    RunFigures swinging = RunFigures.of(
        answers(),
        1000,
        samples(0, 0, 50, 90, 50, 90, 50, 90, 50, 90),
        2,
        10,
        new Capacity("sizes", 2, 50, 50, 100, 10, 10, Double.NaN),
        "transcode");
    SweepResult missed =
        new SweepResult("sizes", "fifo", "", 5, 250, swinging, "", null, null, null);
    assertThat(OverloadTarget.CPU_SPREAD.judge(missed)).hasValue(false); // sd 20
    assertThat(OverloadTarget.GOODPUT.judge(missed)).hasValue(true); // 70/s of 35/s
    assertThat(OverloadTarget.GOODPUT.judge(SweepResult.failed(
            JobKind.SIZES,
            OverloadVariant.of("--variants", "fifo", JobKind.SIZES),
            5,
            "",
            "did not start")))
        .isEmpty();
  }

  @Test
  void withMixedSizesGoodputIsJudgedInWorkNotInJobs() {
    // capacity 20 jobs/s of the sizes mix (110 ms mean): 14 jobs/s at the target, 1,540 ms of work
    Capacity sizes = new Capacity("sizes", 2, 20, 18.2, 30, 260, 18, Double.NaN);
    List<Answer> onlyShort = new ArrayList<>();
    List<Answer> mixed = new ArrayList<>();
    for (int i = 0; i < 140; i++) {
      double sent = i / 14.0;
      onlyShort.add(new Answer("short", sent, sent + 0.05, 200, null));
      mixed.add(new Answer(i % 2 == 0 ? "short" : "long", sent, sent + 0.05, 200, null));
    }
    List<ServerSample> cpu = samples(70, 70, 70, 70, 70, 70, 70, 70, 70, 70);

    RunFigures small = RunFigures.of(onlyShort, 140, cpu, 2, 10, sizes, "x");
    RunFigures both = RunFigures.of(mixed, 140, cpu, 2, 10, sizes, "x");

    assertThat(small.goodputOfTarget()).isCloseTo(1.0, within(0.01));
    assertThat(small.workOfTarget()).isCloseTo(20 / 110.0, within(0.01)); // small jobs only
    assertThat(both.goodputOfTarget()).isCloseTo(1.0, within(0.01));
    assertThat(both.workOfTarget()).isCloseTo(1.0, within(0.01));
    // a single size: the same figure either way
    Capacity shortJobs = new Capacity("short", 2, 20, 100, 21, 25, 100, Double.NaN);
    RunFigures one = RunFigures.of(onlyShort, 140, cpu, 2, 10, shortJobs, "x");
    assertThat(one.workOfTarget()).isCloseTo(one.goodputOfTarget(), within(1e-9));
  }

  @Test
  void theJobsCpuIsSetAgainstTheServicesCpu() {
    // 10 jobs a second in the window, each reporting 70 ms of CPU: 0.7 core-seconds a second. The
    // service ran at 50 % of 2 cores (1 core-second a second), so its jobs had 70 % of its CPU.
    List<Answer> answers = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      double sent = i / 10.0;
      answers.add(new Answer("short", sent, sent + 0.05, 200, null, 70));
      answers.add(new Answer("short", sent, sent + 0.01, 429, "queue_full", Double.NaN));
    }
    answers.add(new Answer("short", 5, 5.05, 200, null)); // an old service: no CPU reported

    RunFigures f = RunFigures.of(
        answers, 201, samples(50, 50, 50, 50, 50, 50, 50, 50, 50, 50), 2, 10, CAPACITY, "x");

    assertThat(f.jobCpuMillis()).isCloseTo(70, within(1e-9));
    assertThat(f.jobsShareOfCpu()).isCloseTo(0.7, within(1e-9));
    RunFigures none = RunFigures.of(
        List.of(new Answer("short", 3, 3.05, 200, null)),
        1,
        samples(50, 50, 50, 50, 50),
        2,
        4,
        CAPACITY,
        "x");
    assertThat(none.jobCpuMillis()).isNaN();
    assertThat(none.jobsShareOfCpu()).isNaN();
  }

  @Test
  void theReportPutsTheAimBesideEachJudgedFigure() {
    RunFigures f = RunFigures.of(
        answers(),
        1000,
        samples(70, 70, 70, 70, 70, 70, 70, 70, 70, 70),
        2,
        10,
        CAPACITY,
        "transcode");
    List<SweepResult> sweep = List.of(
        new SweepResult(
            "short",
            "standing",
            "fifo with queue-delay-target=20ms",
            5,
            500,
            f,
            "0.5 / 0.4 / 0.3",
            null,
            null,
            null),
        SweepResult.failed(
            JobKind.SHORT,
            OverloadVariant.of("--variants", "fifo", JobKind.SHORT),
            5,
            "0.1 / 0.1 / 0.1",
            "the service does not know [x]"));

    String html = HtmlRenderer.render(OverloadReport.of(
            20,
            "1.0 / 2.0 / 3.0",
            "4.0 / 5.0 / 6.0",
            Map.of("short", CAPACITY),
            sweep,
            List.of(),
            OverloadReport.verdicts(Map.of("short", CAPACITY), sweep, List.of(), List.of()))
        .build());

    assertThat(html)
        .contains("<h2>short jobs</h2>")
        .contains("<h3>standing: fifo with queue-delay-target=20ms")
        .contains("<li>" + OverloadTarget.ADMITTED_P99.aim().replace("<", "&lt;") + "</li>")
        .contains("p99 / unloaded p99<small>aim &lt;= 2x, short at 5x</small>")
        .contains("<td class=\"met\">1.8x</td>")
        .contains("not run: the service does not know [x]")
        .contains("before the first run 1.0 / 2.0 / 3.0, after the last 4.0 / 5.0 / 6.0")
        .contains("Capacity 100 jobs/s (measured")
        .contains("<h4>Goodput against offered load</h4><svg");
  }
}
