package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MondayVerdictTest {

  /** A 10-minute run's figures; the rest of the record does not enter the verdicts. */
  private static MondayResult result(
      String variant,
      double cpuMean,
      double worst10s,
      double jobsPerMinute,
      long rescueJobs,
      long rescueServed,
      double historyP99) {
    return new MondayResult(
        variant,
        variant,
        null,
        600,
        cpuMean,
        0,
        0,
        worst10s,
        (long) (jobsPerMinute * 10),
        List.of(),
        jobsPerMinute,
        rescueJobs,
        rescueServed,
        0,
        0,
        1000,
        historyP99,
        0,
        0,
        Map.of(),
        "0",
        "0",
        List.of(),
        List.of());
  }

  private static Outcome outcome(MondayVerdict verdict, String targetStart) {
    return verdict.checks().stream()
        .filter(c -> c.target().startsWith(targetStart))
        .findFirst()
        .map(Verdict::outcome)
        .orElseThrow();
  }

  @Test
  void aCpuLimitThatHoldsEveryTargetMeetsAllFive() {
    MondayResult reference = result("static", 60, 75, 30, 30, 30, 20);
    MondayResult cpu = result("cpu", 71, 82, 36, 30, 30, 12);

    MondayVerdict verdict = MondayVerdict.judge(List.of(reference, cpu)).get(1);

    assertThat(verdict.checks()).hasSize(5).allMatch(c -> c.outcome() == Outcome.MET);
    assertThat(verdict.line()).isEqualTo("cpu: 5 of 5 targets met");
  }

  @Test
  void eachMissedTargetIsNamedWithItsFigure() {
    MondayResult cpu = result("cpu+cost", 78, 93, 36, 30, 29, 51);

    MondayVerdict verdict = MondayVerdict.judge(List.of(cpu)).get(0);

    assertThat(outcome(verdict, "machine CPU mean")).isEqualTo(Outcome.MISSED);
    assertThat(outcome(verdict, "no 10 s window")).isEqualTo(Outcome.MISSED);
    assertThat(outcome(verdict, "every rescue job")).isEqualTo(Outcome.MISSED);
    assertThat(outcome(verdict, "history p99")).isEqualTo(Outcome.MISSED);
    assertThat(outcome(verdict, "re-transcodes")).isEqualTo(Outcome.NOT_MEASURED); // no static run
    assertThat(verdict.line())
        .startsWith("cpu+cost: 0 of 4 targets met; missed: machine CPU mean 70 ± 5 % (78.0 %)")
        .contains("29 of 30")
        .contains("51 ms");
  }

  @Test
  void theCpuBandIsSeventyPlusOrMinusFiveInclusive() {
    assertThat(outcome(
            MondayVerdict.judge(List.of(result("cpu", 65, 80, 1, 1, 1, 1))).get(0), "machine"))
        .isEqualTo(Outcome.MET);
    assertThat(outcome(
            MondayVerdict.judge(List.of(result("cpu", 75.01, 80, 1, 1, 1, 1))).get(0), "machine"))
        .isEqualTo(Outcome.MISSED);
  }

  @Test
  void throughputIsComparedPerUnitOfCpuWithTheStaticRunNearestInCpu() {
    MondayResult low = result("static", 50, 60, 20, 1, 1, 1); // 0.40 per % of CPU
    MondayResult near = result("static-2", 72, 80, 36, 1, 1, 1); // 0.50 per % of CPU
    MondayResult cpu = result("cpu", 70, 80, 33.6, 1, 1, 1); // 0.48: 96 % of the nearest's

    Verdict check = MondayVerdict.throughput(cpu, List.of(low, near));

    assertThat(check.outcome()).isEqualTo(Outcome.MET);
    assertThat(check.measured()).contains("static-2").contains("96 %");
    assertThat(MondayVerdict.throughput(result("cpu", 70, 80, 33, 1, 1, 1), List.of(low, near))
            .outcome())
        .isEqualTo(Outcome.MISSED); // 94 %
  }

  @Test
  void aShortRunHasNoTenSecondWindowToJudge() {
    MondayVerdict verdict =
        MondayVerdict.judge(List.of(result("cpu", 70, Double.NaN, 1, 1, 1, 1))).get(0);

    assertThat(outcome(verdict, "no 10 s window")).isEqualTo(Outcome.NOT_MEASURED);
  }

  @Test
  void noLimiterShowsTheFailureWhenTheCpuIsPinnedAndRescueOrHistoryStarve() {
    MondayVerdict starved =
        MondayVerdict.judge(List.of(result("none", 98, 99, 40, 30, 12, 30))).get(0);
    MondayVerdict slow =
        MondayVerdict.judge(List.of(result("none", 98, 99, 40, 30, 30, 800))).get(0);
    MondayVerdict fine =
        MondayVerdict.judge(List.of(result("none", 98, 99, 40, 30, 30, 20))).get(0);
    MondayVerdict idle =
        MondayVerdict.judge(List.of(result("none", 60, 99, 40, 30, 12, 800))).get(0);

    assertThat(starved.line())
        .startsWith("none: shows the scenario's failure")
        .contains("rescue 12 of 30");
    assertThat(slow.line()).startsWith("none: shows the scenario's failure");
    assertThat(fine.line()).startsWith("none: does NOT show");
    assertThat(idle.line()).startsWith("none: does NOT show");
  }

  @Test
  void aStaticRunIsTheReferenceAndAFailedRunSaysWhy() {
    MondayResult failed = MondayResult.failed(
        MondayVariant.parse("--variants", "cpu", 2).get(0),
        600,
        "the demo service exited with 2",
        "0");

    List<MondayVerdict> verdicts =
        MondayVerdict.judge(List.of(result("static", 55, 70, 30, 30, 30, 9), failed));

    assertThat(verdicts.get(0).line())
        .startsWith("static: the reference: CPU mean 55.0 %, 30.0 re-transcodes/min");
    assertThat(verdicts.get(0).checks()).isEmpty();
    assertThat(verdicts.get(1).line()).isEqualTo("cpu: NOT RUN: the demo service exited with 2");
  }
}
