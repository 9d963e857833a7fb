package dev.sluice.loadtest.adaptive;

import static dev.sluice.loadtest.report.Numbers.f;
import static dev.sluice.loadtest.report.Numbers.num;
import static dev.sluice.loadtest.report.Numbers.pct;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Block.Table.Column;
import dev.sluice.loadtest.report.Headline;
import dev.sluice.loadtest.report.LimitChart;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The adaptive comparison's report: per job mix, its headlines, a table of every variant at every
 * overload against the targets, then the CPU-and-limit chart of each run.
 */
final class AdaptiveReport {

  private AdaptiveReport() {}

  static Report of(List<AdaptiveResult> results, long durationSeconds) {
    Report.Builder report = Report.titled("adaptive limits per job mix")
        .summary("scenario", "adaptive")
        .summary("durationSeconds", durationSeconds)
        .summary("results", results)
        .text(
            "Each row is one run against a fresh demo service: the maintenance hosts send one job "
                + "shape at a multiple of the capacity (capacity = cores x 1000 / mean CPU ms per job, "
                + "100 % of the machine), each request tried once. Figures are over the steady window "
                + "(after the first fifth of the arrivals). Targets: service CPU mean within 70 ± 5 "
                + "%, goodput at least 95 % of the capacity at the 70 % target, a 429 within 50 ms at "
                + "p99, 504s under 5 % of the rejections. Green met, red missed.");
    if (!results.isEmpty()) {
      AdaptiveResult first = results.get(0);
      AdaptiveResult last = results.get(results.size() - 1);
      report.text(results.size() + " runs of "
          + (first.run() == null ? "-" : Long.toString(first.run().durationSeconds()))
          + " s of arrivals each, JDK " + Runtime.version().feature()
          + ", load generator on the same machine. Load average (1 / 5 / 15 min) before the first"
          + " run " + first.loadAverageBefore() + ", after the last " + last.loadAverageAfter()
          + ".");
    }
    results.stream()
        .collect(
            Collectors.groupingBy(AdaptiveResult::mix, LinkedHashMap::new, Collectors.toList()))
        .forEach((mix, runs) -> {
          List<Block> charts = new ArrayList<>();
          for (AdaptiveResult r : runs) {
            charts.add(
                r.run() == null
                    ? Block.Section.of(title(r), new Block.Text("not run: " + r.error()))
                    : new Block.Chart(title(r), LimitChart.of(r.run(), r.limiterName())));
          }
          report.add(Block.Section.of(
              "mix " + mix,
              new Block.Verdicts("Verdict", verdict(runs)),
              table(runs),
              new Block.Grid(2, charts)));
        });
    return report.build();
  }

  /**
   * The headline of a mix, one per load: each adaptive variant against the static limit at the
   * same load (CPU mean, goodput), e.g. {@code at 2x: cpu held 69.7 % CPU against fixed's 53.5 %,
   * goodput +36 %}; without a fixed run, each variant's CPU and goodput alone. Met when every
   * adaptive variant held the CPU on target.
   */
  // skips the very baseline result of the list, whatever its figures
  @SuppressWarnings("ReferenceEquality")
  static List<Verdict> verdict(List<AdaptiveResult> runs) {
    List<Verdict> verdicts = new ArrayList<>();
    Map<Double, List<AdaptiveResult>> byLoad = runs.stream()
        .filter(r -> r.error() == null)
        .collect(Collectors.groupingBy(
            AdaptiveResult::overload, LinkedHashMap::new, Collectors.toList()));
    byLoad.forEach((load, atLoad) -> {
      AdaptiveResult fixed =
          atLoad.stream().filter(r -> r.variant().equals("fixed")).findFirst().orElse(null);
      Headline h = Headline.of("at " + AdaptiveRun.num(load) + "x");
      for (AdaptiveResult r : atLoad) {
        if (r == fixed) {
          continue;
        }
        String part = r.variant() + " held " + num(r.processCpu().mean()) + " % CPU";
        if (fixed != null) {
          part += " against fixed's " + num(fixed.processCpu().mean()) + " %";
          double gain = r.goodputPerSecond() / fixed.goodputPerSecond() - 1;
          if (Double.isFinite(gain)) {
            part += f(", goodput %s%.0f %%", gain >= 0 ? "+" : "", 100 * gain);
          }
        } else {
          part += ", goodput " + pct(r.goodputOfTarget()) + " of target";
        }
        h.judged(part + (r.cpuOnTarget() ? " (on target)" : " (off target)"), r.cpuOnTarget());
      }
      if (!h.checks().isEmpty()) {
        verdicts.add(h.verdict());
      }
    });
    return verdicts;
  }

  private static String title(AdaptiveResult r) {
    return r.mix() + " at " + AdaptiveRun.num(r.overload()) + "x: " + r.variant() + " ("
        + r.description() + ")";
  }

  private static Block.Table table(List<AdaptiveResult> runs) {
    return Block.Table.of(
        List.of(
            Column.of("variant", AdaptiveResult::variant),
            Column.of("load", r -> AdaptiveRun.num(r.overload()) + "x"),
            Column.of("offered /s", r -> num(r.offeredPerSecond())),
            Column.judged(
                "CPU mean %",
                "70 ± 5", r -> num(r.processCpu().mean()), r -> Optional.of(r.cpuOnTarget())),
            Column.of("CPU sd", r -> num(r.processCpu().stddev())),
            Column.of("CPU p10", r -> num(r.processCpu().p10())),
            Column.of("CPU p90", r -> num(r.processCpu().p90())),
            Column.of("machine CPU %", r -> num(r.machineCpu().mean())),
            Column.of("goodput /s", r -> num(r.goodputPerSecond())),
            Column.judged(
                "of target capacity",
                "≥ 95%",
                r -> pct(r.goodputOfTarget()),
                r -> Optional.of(r.goodputOfTarget() >= 0.95)),
            Column.of("200", AdaptiveResult::ok),
            Column.of("429", AdaptiveResult::rejected),
            Column.of("504", AdaptiveResult::timedOut),
            Column.of("other", AdaptiveResult::other),
            Column.of("429 p50 ms", r -> num(r.rejectedMillisP50())),
            Column.judged(
                "429 p99 ms",
                "< 50",
                r -> num(r.rejectedMillisP99()),
                r -> Double.isNaN(r.rejectedMillisP99())
                    ? Optional.empty()
                    : Optional.of(r.rejectedMillisP99() < 50)),
            Column.judged(
                "504 of rejections",
                "< 5%",
                r -> pct(r.timedOutShareOfRejections()),
                r -> Optional.of(r.timedOutShareOfRejections() < 0.05)),
            Column.of("200 p99 ms", r -> num(r.admittedMillisP99())),
            Column.of("limit mean", r -> num(r.limit().mean())),
            Column.of(
                "limit p10-p90", r -> num(r.limit().p10()) + "-" + num(r.limit().p90())),
            Column.of("load avg after", AdaptiveResult::loadAverageAfter)),
        runs,
        2,
        AdaptiveResult::error);
  }
}
