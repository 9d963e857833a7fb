package dev.sluice.loadtest.adaptive;

import dev.sluice.loadtest.report.HtmlReport;
import dev.sluice.loadtest.report.LimitChart;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The adaptive comparison as a self-contained HTML page: per job mix, a table of every variant at
 * every overload against the targets, then the CPU-and-limit chart of each run.
 */
final class AdaptiveReport {

  private AdaptiveReport() {}

  static String render(List<AdaptiveResult> results) {
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Sluice load test: adaptive limits per job mix</title><style>")
        .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222}")
        .append("table{border-collapse:collapse;margin:8px 0 20px;font-size:.85em}")
        .append(".wide{overflow-x:auto}.verdict{font-size:1.1em;margin:6px 0 10px}")
        .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .append("th:first-child,td:first-child{text-align:left}")
        .append(".miss{background:#fde0dc}.met{background:#e3f4e1}")
        .append(".grid{display:grid;grid-template-columns:repeat(2,660px);gap:8px}h4{margin:4px 0}")
        .append(
            "</style></head><body>\n<h1>Sluice load test: adaptive limits per job mix</h1>\n<p>")
        .append(
            "Each row is one run against a fresh demo service: the maintenance hosts send one job "
                + "shape at a multiple of the capacity (capacity = cores x 1000 / mean CPU ms per job, "
                + "100 % of the machine), each request tried once. Figures are over the steady window "
                + "(after the first fifth of the arrivals). Targets: service CPU mean within 70 &plusmn; 5 "
                + "%, goodput at least 95 % of the capacity at the 70 % target, a 429 within 50 ms at "
                + "p99, 504s under 5 % of the rejections. Green met, red missed.</p>\n");
    if (!results.isEmpty()) {
      AdaptiveResult first = results.get(0);
      AdaptiveResult last = results.get(results.size() - 1);
      html.append("<p>")
          .append(results.size())
          .append(" runs of ")
          .append(first.run() == null ? "-" : Long.toString(first.run().durationSeconds()))
          .append(" s of arrivals each, JDK ")
          .append(Runtime.version().feature())
          .append(
              ", load generator on the same machine. Load average (1 / 5 / 15 min) before the first run ")
          .append(esc(first.loadAverageBefore()))
          .append(", after the last ")
          .append(esc(last.loadAverageAfter()))
          .append(".</p>\n");
    }
    Map<String, List<AdaptiveResult>> byMix = results.stream()
        .collect(
            Collectors.groupingBy(AdaptiveResult::mix, LinkedHashMap::new, Collectors.toList()));
    byMix.forEach((mix, runs) -> {
      html.append("<h2>mix ").append(esc(mix)).append("</h2>\n");
      for (String line : verdict(runs)) {
        html.append("<p class=\"verdict\">").append(esc(line)).append("</p>\n");
      }
      html.append("<div class=\"wide\">");
      table(html, runs);
      html.append("</div>");
      html.append("<div class=\"grid\">\n");
      for (AdaptiveResult r : runs) {
        html.append("<div><h4>").append(esc(title(r))).append("</h4>");
        if (r.run() == null) {
          html.append("<p>not run: ").append(esc(String.valueOf(r.error()))).append("</p>");
        } else {
          html.append(LimitChart.of(r.run(), r.limiterName()));
        }
        html.append("</div>\n");
      }
      html.append("</div>\n");
    });
    return html.append("</body></html>\n").toString();
  }

  /**
   * The headline of a mix, one line per load: each adaptive variant against the static limit at
   * the same load (CPU mean, goodput), e.g. {@code at 2x: cpu held 69.7 % CPU against fixed's 53.5
   * %, goodput +36 %}; without a fixed run, each variant's CPU and goodput alone.
   */
  // skips the very baseline result of the list, whatever its figures
  @SuppressWarnings("ReferenceEquality")
  static List<String> verdict(List<AdaptiveResult> runs) {
    List<String> lines = new java.util.ArrayList<>();
    Map<Double, List<AdaptiveResult>> byLoad = runs.stream()
        .filter(r -> r.error() == null)
        .collect(Collectors.groupingBy(
            AdaptiveResult::overload, LinkedHashMap::new, Collectors.toList()));
    byLoad.forEach((load, atLoad) -> {
      AdaptiveResult fixed =
          atLoad.stream().filter(r -> r.variant().equals("fixed")).findFirst().orElse(null);
      StringBuilder line =
          new StringBuilder("at ").append(AdaptiveRun.num(load)).append("x: ");
      boolean first = true;
      for (AdaptiveResult r : atLoad) {
        if (r == fixed) {
          continue;
        }
        line.append(first ? "" : "; ")
            .append(r.variant())
            .append(" held ")
            .append(num(r.processCpu().mean()))
            .append(" % CPU");
        if (fixed != null) {
          line.append(" against fixed's ")
              .append(num(fixed.processCpu().mean()))
              .append(" %");
          double gain = r.goodputPerSecond() / fixed.goodputPerSecond() - 1;
          if (Double.isFinite(gain)) {
            line.append(", goodput ")
                .append(gain >= 0 ? "+" : "")
                .append(String.format(Locale.ROOT, "%.0f", 100 * gain))
                .append(" %");
          }
        } else {
          line.append(", goodput ").append(pct(r.goodputOfTarget())).append(" of target");
        }
        line.append(r.cpuOnTarget() ? " (on target)" : " (off target)");
        first = false;
      }
      if (!first) {
        lines.add(line.toString());
      }
    });
    return lines;
  }

  private static String title(AdaptiveResult r) {
    return r.mix() + " at " + AdaptiveRun.num(r.overload()) + "x: " + r.variant() + " ("
        + r.description() + ")";
  }

  private static void table(StringBuilder html, List<AdaptiveResult> runs) {
    html.append(
            "<table><tr><th>variant</th><th>load</th><th>offered /s</th><th>CPU mean % (aim 70 &plusmn; 5)</th>")
        .append("<th>CPU sd</th><th>CPU p10</th><th>CPU p90</th><th>machine CPU %</th>")
        .append(
            "<th>goodput /s</th><th>of target capacity (aim &ge; 95%)</th><th>200</th><th>429</th><th>504</th>")
        .append(
            "<th>other</th><th>429 p50 ms</th><th>429 p99 ms (aim &lt; 50)</th><th>504 of rejections (aim &lt; 5%)</th>")
        .append(
            "<th>200 p99 ms</th><th>limit mean</th><th>limit p10-p90</th><th>load avg after</th></tr>\n");
    for (AdaptiveResult r : runs) {
      html.append("<tr><td>")
          .append(esc(r.variant()))
          .append("</td><td>")
          .append(AdaptiveRun.num(r.overload()))
          .append("x</td>");
      if (r.error() != null) {
        html.append("<td colspan=\"19\" class=\"miss\">not run: ")
            .append(esc(r.error()))
            .append("</td></tr>\n");
        continue;
      }
      cell(html, num(r.offeredPerSecond()), null);
      cell(html, num(r.processCpu().mean()), r.cpuOnTarget());
      cell(html, num(r.processCpu().stddev()), null);
      cell(html, num(r.processCpu().p10()), null);
      cell(html, num(r.processCpu().p90()), null);
      cell(html, num(r.machineCpu().mean()), null);
      cell(html, num(r.goodputPerSecond()), null);
      cell(html, pct(r.goodputOfTarget()), r.goodputOfTarget() >= 0.95);
      cell(html, Long.toString(r.ok()), null);
      cell(html, Long.toString(r.rejected()), null);
      cell(html, Long.toString(r.timedOut()), null);
      cell(html, Long.toString(r.other()), null);
      cell(html, num(r.rejectedMillisP50()), null);
      cell(
          html,
          num(r.rejectedMillisP99()),
          Double.isNaN(r.rejectedMillisP99()) ? null : r.rejectedMillisP99() < 50);
      cell(html, pct(r.timedOutShareOfRejections()), r.timedOutShareOfRejections() < 0.05);
      cell(html, num(r.admittedMillisP99()), null);
      cell(html, num(r.limit().mean()), null);
      cell(html, num(r.limit().p10()) + "-" + num(r.limit().p90()), null);
      cell(html, r.loadAverageAfter(), null);
      html.append("</tr>\n");
    }
    html.append("</table>\n");
  }

  private static void cell(StringBuilder html, String value, Boolean met) {
    html.append(met == null ? "<td>" : met ? "<td class=\"met\">" : "<td class=\"miss\">")
        .append(esc(value))
        .append("</td>");
  }

  static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.1f", v);
  }

  private static String pct(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }

  private static String esc(String s) {
    return HtmlReport.esc(s);
  }
}
