package dev.sluice.loadtest.monday;

import static dev.sluice.loadtest.report.Numbers.num;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Charts;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The replay's report: the verdict line of each variant, the targets as a table, the figures side
 * by side, and the machine's CPU, the limit and the re-transcodes per minute over the window, every
 * variant in one chart each.
 */
final class MondayReport {

  private MondayReport() {}

  static Report.Builder of(
      List<MondayResult> results, List<MondayVerdict> verdicts, String command) {
    return Report.titled("the Monday replay (ffmpeg)")
        .text(
            "Each variant ran on a fresh demo service with the ffmpeg engine: 32 maintenance hosts "
                + "re-transcoding clips of the library in a loop (X-Host-Id), 8 viewers on "
                + "/api/history at 2/s each, and the rescue job's critical jobs in the same "
                + "queue. CPU is the whole machine's, from /proc/stat (ffmpeg's children "
                + "count, and so does the load generator). Command: " + command)
        .add(new Block.Verdicts(
            "Verdicts", verdicts.stream().map(MondayVerdict::headline).toList()))
        .add(targets(verdicts))
        .add(Block.Section.of("Figures", figures(results)))
        .add(Block.Section.of("Machine CPU (%)", chart("% CPU", results, MondayResult::cpu, true)))
        .add(Block.Section.of(
            "Transcode limit (from /sluice)", chart("limit", results, MondayResult::limits, false)))
        .add(Block.Section.of("Re-transcodes completed per minute", perMinute(results)));
  }

  private static List<Block> targets(List<MondayVerdict> verdicts) {
    List<Verdict> checks = verdicts.stream().flatMap(v -> v.checks().stream()).toList();
    return checks.isEmpty()
        ? List.of()
        : List.of(Block.Section.of("Targets", Block.Table.checks("variant", checks)));
  }

  private static Block.Table figures(List<MondayResult> results) {
    Block.Table.Comparison<MondayResult> t = Block.Table.comparing(results, MondayResult::variant);
    row(t, "set-up", MondayResult::description);
    row(t, "machine CPU mean %", r -> num(r.cpuMean()));
    row(t, "seconds above 90 %", r -> num(r.secondsAbove90()));
    row(t, "longest stretch above 95 %, s", r -> num(r.longestAbove95()));
    row(t, "worst 10 s after the first 30 s, %", r -> num(r.worst10sAfter30()));
    row(
        t,
        "re-transcodes completed (per minute)",
        r -> r.completed() + " (" + num(r.jobsPerMinute()) + ")");
    row(t, "rescue jobs served", r -> r.rescueServed() + " of " + r.rescueJobs());
    row(
        t,
        "rescue queue wait p50 / max, ms",
        r -> num(r.rescueWaitP50()) + " / " + num(r.rescueWaitMax()));
    row(t, "history lookups, p99 ms", r -> r.historyLookups() + ", " + num(r.historyP99()));
    row(t, "tries answered 429 / 504", r -> r.tries429() + " / " + r.tries504());
    for (String kind : List.of("maintenance", "rescue", "history")) {
      row(t, kind + " tries by outcome", r -> outcomes(r.tries().getOrDefault(kind, Map.of())));
    }
    row(t, "load average before / after", r -> r.loadBefore() + " -> " + r.loadAfter());
    return t.build();
  }

  private static void row(
      Block.Table.Comparison<MondayResult> t, String name, Function<MondayResult, String> cell) {
    t.row(name, r -> r.error() != null ? "not run" : cell.apply(r));
  }

  private static String outcomes(Map<String, Long> tries) {
    List<String> parts = new ArrayList<>();
    tries.forEach((outcome, n) -> parts.add(outcome + ": " + n));
    return parts.isEmpty() ? "-" : String.join(", ", parts);
  }

  private static Block chart(
      String yTitle,
      List<MondayResult> results,
      Function<MondayResult, List<double[]>> series,
      boolean cpuLines) {
    XYChart chart = Charts.xy(yTitle, yTitle, 1000, 380);
    double end = 0;
    for (MondayResult r : results) {
      List<double[]> points = series.apply(r);
      if (!points.isEmpty()) {
        end = Math.max(end, points.get(points.size() - 1)[0]);
        Charts.line(chart, r.variant(), points);
      }
    }
    if (chart.getSeriesMap().isEmpty()) {
      return new Block.Text("no readings");
    }
    if (cpuLines) {
      Charts.cpuTarget(chart, List.of(0.0, end));
      Charts.line(chart, "90 %", List.of(new double[] {0, 90}, new double[] {end, 90}));
      chart.getStyler().setYAxisMin(0.0).setYAxisMax(100.0);
    }
    return new Block.Chart(null, Charts.svg(chart));
  }

  private static Block perMinute(List<MondayResult> results) {
    XYChart chart = Charts.xy("re-transcodes per minute", "re-transcodes", 1000, 320);
    chart.setXAxisTitle("minute of the window");
    chart.getStyler().setMarkerSize(8);
    for (MondayResult r : results) {
      if (r.error() == null && !r.perMinute().isEmpty()) {
        List<double[]> points = IntStream.range(0, r.perMinute().size())
            .mapToObj(m -> new double[] {m + 1, r.perMinute().get(m)})
            .toList();
        Charts.line(chart, r.variant(), points).setMarker(SeriesMarkers.CIRCLE);
      }
    }
    return chart.getSeriesMap().isEmpty()
        ? new Block.Text("no readings")
        : new Block.Chart(null, Charts.svg(chart));
  }
}
