package dev.sluice.loadtest.overhead;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.overhead.OverheadRun.Result;
import dev.sluice.loadtest.overhead.OverheadRun.Side;
import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The overhead report opens with each Sluice variant against no limiter and the cheapest peer. */
class OverheadVerdictTest {

  private static Side side(String variant, double cpuRatio, double bytes, double bytesOver) {
    return new Side(
        variant,
        variant,
        20 * cpuRatio,
        cpuRatio,
        5000,
        1,
        1,
        2,
        0,
        List.of(),
        cpuRatio - 0.05,
        cpuRatio + 0.05,
        bytes,
        bytesOver,
        List.of(),
        PairedRatio.NONE);
  }

  private static Result result(Side... sides) {
    return new Result("/api/ping", "wrk -t1 -c16", 7, 2, 0.5, 0.6, List.of(sides));
  }

  @Test
  void aSluiceVariantNoDearerThanTheCheapestPeerMeetsTheAim() {
    List<Verdict> verdicts = OverheadVerdict.of(result(
        side("none", 1, 4000, 0),
        side("sluice-limiter", 0.95, 4891, 891),
        side("ratelimitplugin", 0.977, 4568, 568),
        side("qos", 0.958, 4539, 539),
        side("javalin-handlers", 0.9, 4559, 559)));

    assertThat(verdicts).hasSize(1);
    assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.MET);
    assertThat(verdicts.get(0).text())
        .isEqualTo("sluice-limiter: 0.950x the CPU per request of no limiter (no interval; rounds"
            + " 0.900-1.000),"
            + " 4,891 B per request (+891 B over no limiter); 0.950x (aim ≤ 0.958x) against the"
            + " cheapest peer, qos: 0.958x (rounds 0.908-1.008), 4,539 B per request (+539 B over"
            + " no limiter)");
  }

  @Test
  void aSluiceVariantDearerThanTheCheapestPeerMissesIt() {
    List<Verdict> verdicts = OverheadVerdict.of(result(
        side("none", 1, 4000, 0),
        side("sluice-rate", 1.119, 5264, 1264),
        side("sluice-rate@before", 1.3, 6000, 2000),
        side("qos", 0.958, 4539, 539)));

    assertThat(verdicts)
        .extracting(Verdict::outcome)
        .containsExactly(Outcome.MISSED, Outcome.MISSED);
    assertThat(verdicts.get(0).text())
        .contains("1.119x (aim ≤ 0.958x) against the cheapest peer, qos");
  }

  @Test
  void withoutAPeerThereIsNothingToJudgeAgainst() {
    Verdict v = OverheadVerdict.of(
            result(side("none", 1, 4000, 0), side("sluice-limiter", 1.02, Double.NaN, Double.NaN)))
        .get(0);

    assertThat(v.outcome()).isEqualTo(Outcome.NOT_MEASURED);
    assertThat(v.text())
        .isEqualTo(
            "sluice-limiter: 1.020x the CPU per request of no limiter (no interval; rounds 0.970-1.070),"
                + " bytes per request not readable; no peer measured to judge it against");
  }

  @Test
  void theReportOpensWithTheHeadline() {
    String html = HtmlRenderer.render(OverheadReport.of(result(
        side("none", 1, 4000, 0),
        side("sluice-limiter", 1.2, 4891, 891),
        side("qos", 0.96, 4539, 539))));

    assertThat(html)
        .contains("<p class=\"verdict miss\">sluice-limiter: 1.200x the CPU per request");
    assertThat(html.indexOf("class=\"verdicts\"")).isLessThan(html.indexOf("<table>"));
  }

  private static Side measured(String variant, double... cpuPerRound) {
    double[] base = {40, 44, 38, 41, 39, 43, 40};
    List<Double> rounds = java.util.Arrays.stream(cpuPerRound).boxed().toList();
    return new Side(
        variant,
        variant,
        cpuPerRound[0],
        cpuPerRound[0] / 40,
        5000,
        1,
        1,
        2,
        0,
        rounds,
        0.9,
        1.1,
        4000,
        100,
        List.of(),
        PairedRatio.of(cpuPerRound, base));
  }

  @Test
  void pairedRoundsThatStraddleThePeerAreSaidNotToBeToldApart() {
    List<Verdict> verdicts = OverheadVerdict.of(result(
        measured("none", 40, 44, 38, 41, 39, 43, 40),
        measured("sluice-rate", 40.5, 44.2, 38.8, 41.1, 39.2, 43.9, 40.6),
        measured("qos", 40.1, 44.9, 38.2, 41.9, 39.1, 43.0, 40.2)));

    assertThat(verdicts.get(0).text())
        .contains("the cheapest peer's CPU per request")
        .contains("the two cannot be told apart")
        .contains("qos:");
  }

  @Test
  void pairedRoundsThatPutSluiceClearlyAboveThePeerMissTheAim() {
    List<Verdict> verdicts = OverheadVerdict.of(result(
        measured("none", 40, 44, 38, 41, 39, 43, 40),
        measured("sluice-rate", 44, 48.4, 41.8, 45.1, 42.9, 47.3, 44),
        measured("qos", 40, 44, 38, 41, 39, 43, 40)));

    assertThat(verdicts.get(0).outcome()).isNotEqualTo(Outcome.MET);
    assertThat(verdicts.get(0).text())
        .contains("1.100x the cheapest peer's CPU per request")
        .doesNotContain("cannot be told apart");
  }
}
