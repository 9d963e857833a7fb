package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import dev.sluice.loadtest.sampling.Spread;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The overload report opens with, per kind of job and target, who met the aim and who missed. */
class OverloadVerdictTest {

  private static SweepResult run(
      String kind, String variant, double point, double goodputOfTarget, double p99OverUnloaded) {
    Spread cpu = new Spread(10, 70, 3, 66, 74);
    RunFigures f = new RunFigures(
        2,
        10,
        new RunFigures.Counts(1000, 600, 400, 0, 0),
        60,
        0.6,
        goodputOfTarget,
        goodputOfTarget,
        new RunFigures.Latency(600, 20, 40),
        p99OverUnloaded,
        Map.of(),
        5,
        20,
        0.97,
        Map.of(),
        cpu,
        cpu,
        cpu,
        200,
        0.9);
    return new SweepResult(kind, variant, "", point, 100 * point, f, "", null, null, null);
  }

  private static Verdict line(List<Verdict> verdicts, String start) {
    return verdicts.stream().filter(v -> v.text().startsWith(start)).findFirst().orElseThrow();
  }

  @Test
  void eachTargetNamesWhoMetItAndWhoMissedItWithTheFigures() {
    List<Verdict> verdicts = OverloadVerdict.of(
        List.of("short"),
        List.of(
            run("short", "fifo", 5, 0.97, 31),
            run("short", "standing", 5, 0.96, 1.7),
            run("short", "netflix-gradient2", 5, 0.5, 1.2)),
        List.of());

    Verdict p99 = line(verdicts, "short jobs, admitted p99");
    assertThat(p99.outcome()).isEqualTo(Outcome.MET);
    assertThat(p99.text())
        .isEqualTo(
            "short jobs, admitted p99 <= 2x the unloaded p99, short jobs at 5x: met by"
                + " standing (1.7x at 5x), netflix-gradient2 (1.2x at 5x); missed by fifo (31.0x at 5x)");
  }

  @Test
  void aTargetNoSluiceVariantMetIsRedEvenWhenAPeerMetIt() {
    List<Verdict> verdicts = OverloadVerdict.of(
        List.of("short"),
        List.of(run("short", "fifo", 2, 0.80, 30), run("short", "netflix-gradient2", 2, 0.96, 1.2)),
        List.of());

    Verdict goodput = line(verdicts, "short jobs, goodput");
    assertThat(goodput.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(goodput.text())
        .endsWith(": met by netflix-gradient2 (96% at 2x); missed by fifo (80% at 2x)");
  }

  @Test
  void whatWasNotRunIsSaidNotMeasured() {
    List<Verdict> verdicts = OverloadVerdict.of(
        List.of("short"),
        List.of(
            run("short", "standing", 1, 0.5, 1.1),
            SweepResult.failed(
                JobKind.SHORT,
                OverloadVariant.of("--variants", "fifo", JobKind.SHORT),
                5,
                "",
                "did not start")),
        List.of());

    Verdict goodput = line(verdicts, "short jobs, goodput");
    assertThat(goodput.outcome()).isEqualTo(Outcome.NOT_MEASURED);
    assertThat(goodput.text())
        .endsWith(": not measured (no run measured it where it is judged); not run: fifo");
    Verdict step = line(verdicts, "short jobs, CPU back");
    assertThat(step.outcome()).isEqualTo(Outcome.NOT_MEASURED);
    assertThat(step.text()).endsWith("not measured (the step test was not run)");
  }

  @Test
  void theCpuTargetsApplyToMixedSizesOnlyAndTheP99OneToShortJobsOnly() {
    List<Verdict> verdicts = OverloadVerdict.of(
        List.of("long", "sizes"),
        List.of(run("long", "fifo", 2, 0.97, 3), run("sizes", "fifo", 2, 0.97, 3)),
        List.of());

    assertThat(verdicts).noneMatch(v -> v.text().startsWith("long jobs, CPU sd"));
    assertThat(verdicts).noneMatch(v -> v.text().startsWith("sizes jobs, admitted p99"));
    assertThat(line(verdicts, "sizes jobs, CPU sd").text()).endsWith("met by fifo (sd 3.0 at 2x)");
    assertThat(line(verdicts, "sizes jobs, CPU mean").outcome()).isEqualTo(Outcome.MET);
  }

  @Test
  void theReportOpensWithTheHeadlines() {
    List<SweepResult> sweep = List.of(run("short", "standing", 5, 0.90, 1.7));

    String html = HtmlRenderer.render(OverloadReport.of(
            20,
            "1 / 1 / 1",
            "1 / 1 / 1",
            Map.of("short", RunFiguresTest.CAPACITY),
            sweep,
            List.of(),
            OverloadReport.verdicts(
                Map.of("short", RunFiguresTest.CAPACITY), sweep, List.of(), List.of()))
        .build());

    assertThat(html)
        .contains("<p class=\"verdict miss\">short jobs, goodput &gt;= 95% of the capacity"
            + " at the 70% CPU target, at 2x, 5x and 10x: missed by standing (90% at 5x)</p>")
        .contains("<p class=\"verdict met\">short jobs, admitted p99");
    assertThat(html.indexOf("class=\"verdicts\"")).isLessThan(html.indexOf("<table>"));
  }
}
