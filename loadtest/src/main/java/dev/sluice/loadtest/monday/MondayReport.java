package dev.sluice.loadtest.monday;

import static dev.sluice.loadtest.report.HtmlReport.esc;

import dev.sluice.loadtest.report.Charts;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The replay as a self-contained HTML page: the verdict line of each variant, the targets as a
 * table, the figures side by side, and the machine's CPU, the limit and the re-transcodes per
 * minute over the window, every variant in one chart each.
 */
final class MondayReport {

  private MondayReport() {}

  static String render(List<MondayResult> results, List<MondayVerdict> verdicts, String command) {
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Sluice load test: the Monday replay</title><style>")
        .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}")
        .append("table{border-collapse:collapse;margin:8px 0 20px;font-size:.9em}")
        .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .append("th:first-child,td:first-child{text-align:left}")
        .append(".miss{background:#fde0dc}.met{background:#e3f4e1}.verdict{margin:4px 0}")
        .append("svg{max-width:100%}</style></head><body>\n")
        .append("<h1>Sluice load test: the Monday replay (ffmpeg)</h1>\n<p>")
        .append(
            "Each variant ran on a fresh demo service with the ffmpeg engine: 32 maintenance hosts "
                + "re-transcoding clips of the library in a loop (<code>X-Host-Id</code>), 8 viewers on "
                + "<code>/api/history</code> at 2/s each, and the rescue job's critical jobs in the same "
                + "queue. CPU is the whole machine's, from <code>/proc/stat</code> (ffmpeg's children "
                + "count, and so does the load generator). Command: <code>")
        .append(esc(command))
        .append("</code></p>\n<h2>Verdicts</h2>\n");
    for (MondayVerdict v : verdicts) {
      html.append("<p class=\"verdict\">").append(esc(v.line())).append("</p>\n");
    }
    targets(html, verdicts);
    figures(html, results);
    html.append("<h2>Machine CPU (%)</h2>\n")
        .append(chart("% CPU", results, MondayResult::cpu, true))
        .append("<h2>Transcode limit (from /sluice)</h2>\n")
        .append(chart("limit", results, MondayResult::limits, false))
        .append("<h2>Re-transcodes completed per minute</h2>\n")
        .append(perMinute(results))
        .append("</body></html>\n");
    return html.toString();
  }

  private static void targets(StringBuilder html, List<MondayVerdict> verdicts) {
    List<MondayVerdict> judged =
        verdicts.stream().filter(v -> !v.checks().isEmpty()).toList();
    if (judged.isEmpty()) {
      return;
    }
    html.append(
        "<h2>Targets</h2>\n<table><tr><th>variant</th><th>target</th><th>verdict</th><th>figure</th></tr>\n");
    for (MondayVerdict v : judged) {
      for (MondayVerdict.Check c : v.checks()) {
        String css = c.outcome() == MondayVerdict.Outcome.MET
            ? "met"
            : c.outcome() == MondayVerdict.Outcome.MISSED ? "miss" : "";
        html.append("<tr><td>")
            .append(esc(v.variant()))
            .append("</td><td>")
            .append(esc(c.target()))
            .append("</td><td class=\"")
            .append(css)
            .append("\">")
            .append(c.outcome().name().toLowerCase(Locale.ROOT).replace('_', ' '))
            .append("</td><td>")
            .append(esc(c.detail()))
            .append("</td></tr>\n");
      }
    }
    html.append("</table>\n");
  }

  private static void figures(StringBuilder html, List<MondayResult> results) {
    html.append("<h2>Figures</h2>\n<table><tr><th></th>");
    results.forEach(r -> html.append("<th>").append(esc(r.variant())).append("</th>"));
    html.append("</tr>\n");
    row(html, results, "set-up", MondayResult::description);
    row(html, results, "machine CPU mean %", r -> num(r.cpuMean()));
    row(html, results, "seconds above 90 %", r -> num(r.secondsAbove90()));
    row(html, results, "longest stretch above 95 %, s", r -> num(r.longestAbove95()));
    row(html, results, "worst 10 s after the first 30 s, %", r -> num(r.worst10sAfter30()));
    row(
        html,
        results,
        "re-transcodes completed (per minute)",
        r -> r.completed() + " (" + num(r.jobsPerMinute()) + ")");
    row(html, results, "rescue jobs served", r -> r.rescueServed() + " of " + r.rescueJobs());
    row(
        html,
        results,
        "rescue queue wait p50 / max, ms",
        r -> num(r.rescueWaitP50()) + " / " + num(r.rescueWaitMax()));
    row(
        html,
        results,
        "history lookups, p99 ms",
        r -> r.historyLookups() + ", " + num(r.historyP99()));
    row(html, results, "tries answered 429 / 504", r -> r.tries429() + " / " + r.tries504());
    for (String kind : List.of("maintenance", "rescue", "history")) {
      row(
          html,
          results,
          kind + " tries by outcome",
          r -> outcomes(r.tries().getOrDefault(kind, Map.of())));
    }
    row(html, results, "load average before / after", r -> r.loadBefore() + " -> " + r.loadAfter());
    html.append("</table>\n");
  }

  private static void row(
      StringBuilder html,
      List<MondayResult> results,
      String name,
      Function<MondayResult, String> cell) {
    html.append("<tr><td>").append(esc(name)).append("</td>");
    for (MondayResult r : results) {
      html.append("<td>")
          .append(r.error() != null ? "not run" : esc(cell.apply(r)))
          .append("</td>");
    }
    html.append("</tr>\n");
  }

  private static String outcomes(Map<String, Long> tries) {
    List<String> parts = new ArrayList<>();
    tries.forEach((outcome, n) -> parts.add(outcome + ": " + n));
    return parts.isEmpty() ? "-" : String.join(", ", parts);
  }

  private static String chart(
      String yTitle,
      List<MondayResult> results,
      Function<MondayResult, List<double[]>> series,
      boolean cpuLines) {
    XYChart chart = new XYChartBuilder()
        .width(1000)
        .height(380)
        .xAxisTitle("seconds")
        .yAxisTitle(yTitle)
        .build();
    Charts.style(chart.getStyler());
    chart.getStyler().setMarkerSize(0);
    boolean any = false;
    double end = 0;
    for (MondayResult r : results) {
      List<double[]> points = series.apply(r);
      if (points.isEmpty()) {
        continue;
      }
      any = true;
      end = Math.max(end, points.get(points.size() - 1)[0]);
      line(chart, r.variant(), points);
    }
    if (!any) {
      return "<p>no readings</p>\n";
    }
    if (cpuLines) {
      line(chart, "70 % target", List.of(new double[] {0, 70}, new double[] {end, 70}));
      line(chart, "90 %", List.of(new double[] {0, 90}, new double[] {end, 90}));
      chart.getStyler().setYAxisMin(0.0).setYAxisMax(100.0);
    }
    return Charts.svg(chart) + "\n";
  }

  private static String perMinute(List<MondayResult> results) {
    List<MondayResult> ran = results.stream()
        .filter(r -> r.error() == null && !r.perMinute().isEmpty())
        .toList();
    if (ran.isEmpty()) {
      return "<p>no readings</p>\n";
    }
    XYChart chart = new XYChartBuilder()
        .width(1000)
        .height(320)
        .xAxisTitle("minute of the window")
        .yAxisTitle("re-transcodes")
        .build();
    Charts.style(chart.getStyler());
    for (MondayResult r : ran) {
      List<double[]> points = new ArrayList<>();
      for (int m = 0; m < r.perMinute().size(); m++) {
        points.add(new double[] {m + 1, r.perMinute().get(m)});
      }
      line(chart, r.variant(), points).setMarker(SeriesMarkers.CIRCLE);
    }
    return Charts.svg(chart) + "\n";
  }

  private static XYSeries line(XYChart chart, String name, List<double[]> points) {
    List<Double> x = points.stream().map(p -> p[0]).toList();
    List<Double> y = points.stream().map(p -> p[1]).toList();
    XYSeries series = chart.addSeries(name, x, y);
    series.setMarker(SeriesMarkers.NONE);
    return series;
  }

  static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.1f", v);
  }
}
