package dev.sluice.loadtest.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.report.RunReport;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scenarios' reports open with a headline computed from the run's own figures. */
class ScenarioVerdictTest {

  private static RunSummary run(
      String label,
      double cpu,
      double historyP99,
      long rescueSent,
      long rescueServed,
      long transcodeServed,
      long internalErrors) {
    Map<String, Map<String, Long>> outcomes = new LinkedHashMap<>();
    outcomes.put("transcode", Map.of("200", transcodeServed, "429", 40L, "500", internalErrors));
    outcomes.put("rescue", Map.of("200", rescueServed, "504", rescueSent - rescueServed));
    outcomes.put("history", Map.of("200", 200L, "503", 3L));
    Map<String, Long> sent = Map.of(
        "transcode", transcodeServed + 40 + internalErrors, "rescue", rescueSent, "history", 203L);
    Map<String, Percentiles> latency = Double.isNaN(historyP99)
        ? Map.of()
        : Map.of("history 200", new Percentiles(200, 5, 8, historyP99, historyP99, historyP99));
    return new RunSummary(
        label,
        "monday-maintenance",
        "http://127.0.0.1:1",
        1,
        60,
        20,
        200,
        2,
        200,
        new Accounting(sent, outcomes, 0, 0, 0, Map.of(), 0),
        latency,
        Map.of(),
        Map.of(),
        new RunSummary.Cpu(cpu, cpu + 10, cpu + 5),
        List.of(),
        Map.of());
  }

  @Test
  void aRunThatHoldsEveryAimIsGreenWithEachAimBesideItsFigure() {
    Verdict v = ScenarioVerdict.of(List.of(run("with Sluice", 69.7, 12, 10, 10, 300, 0)), false)
        .get(0);

    assertThat(v.outcome()).isEqualTo(Outcome.MET);
    assertThat(v.text())
        .isEqualTo("with Sluice: service CPU mean 69.7% (aim ≤ 75.0%); history p99 12 ms (aim < 50"
            + " ms); rescue 10 of 10 served (aim all); 0 5xx other than 503/504 (aim 0)");
  }

  @Test
  void withAbTheRunWithSluiceIsSetAgainstTheRunWithout() {
    List<Verdict> verdicts = ScenarioVerdict.of(
        List.of(
            run("without Sluice", 98.1, 3400, 10, 4, 200, 12),
            run("with Sluice", 69.7, 12, 10, 10, 300, 0)),
        true);

    assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.INFO);
    assertThat(verdicts.get(0).text())
        .isEqualTo("without Sluice (the reference): service CPU mean 98.1%, history p99 3,400 ms,"
            + " rescue 4 of 10 served, 12 5xx other than 503/504, 200 transcode jobs served");
    assertThat(verdicts.get(1).outcome()).isEqualTo(Outcome.MET);
    assertThat(verdicts.get(1).text())
        .contains("service CPU mean 69.7% (aim ≤ 75.0%) against 98.1% without")
        .contains("history p99 12 ms (aim < 50 ms) against 3,400 ms")
        .contains("rescue 10 of 10 served (aim all) against 4 of 10")
        .contains("0 5xx other than 503/504 (aim 0) against 12")
        .endsWith("transcode jobs served 300 against 200 (+50%)");
  }

  @Test
  void aMissedAimTurnsTheHeadlineRed() {
    Verdict v = ScenarioVerdict.of(List.of(run("with Sluice", 91.0, 80, 10, 9, 300, 2)), false)
        .get(0);

    assertThat(v.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(v.text())
        .contains("service CPU mean 91.0% (aim ≤ 75.0%)")
        .contains("history p99 80 ms (aim < 50 ms)")
        .contains("rescue 9 of 10 served (aim all)")
        .contains("2 5xx other than 503/504 (aim 0)");
  }

  @Test
  void aFigureTheRunDidNotMeasureIsSaidSoAndNotJudged() {
    Verdict v = ScenarioVerdict.of(
            List.of(run("with Sluice", Double.NaN, Double.NaN, 0, 0, 300, 0)), false)
        .get(0);

    assertThat(v.outcome()).isEqualTo(Outcome.MET); // the one aim it could judge: no 5xx
    assertThat(v.text())
        .contains("service CPU not measured")
        .contains("history p99 not measured (no history lookup answered 200)")
        .contains("no rescue job sent");
    assertThat(ScenarioVerdict.of(
                List.of(
                    run("without Sluice", 90, 900, 0, 0, 300, 0),
                    run("with Sluice", 70, 20, 0, 0, 300, 0)),
                true)
            .get(0)
            .text())
        .contains("history p99 900 ms, no rescue job sent, 0 5xx");
  }

  @Test
  void theReportOpensWithTheHeadlineInItsColour() {
    List<RunSummary> runs = List.of(run("with Sluice", 91.0, 12, 10, 10, 300, 0));

    String html = HtmlRenderer.render(
        RunReport.of(runs, ScenarioVerdict.of(runs, false), List.of()).build());

    assertThat(html)
        .contains("<p class=\"verdict miss\">with Sluice: service CPU mean 91.0% (aim ≤ 75.0%)");
    assertThat(html.indexOf("class=\"verdict miss\"")).isLessThan(html.indexOf("<table>"));
  }

  @Test
  void theAimsHoldAtTheirBoundaries() {
    Verdict atAims = ScenarioVerdict.of(List.of(run("on", 75.0, 49.9, 10, 10, 300, 0)), false)
        .get(0);
    Verdict justOver =
        ScenarioVerdict.of(List.of(run("on", 75.01, 10, 10, 10, 300, 0)), false).get(0);
    Verdict historyAtAim =
        ScenarioVerdict.of(List.of(run("on", 70, 50, 10, 10, 300, 0)), false).get(0);

    assertThat(atAims.outcome()).isEqualTo(Outcome.MET);
    assertThat(justOver.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(historyAtAim.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(historyAtAim.text()).contains("history p99 50 ms (aim < 50 ms)");
  }
}
