package dev.sluice.loadtest.report;

import dev.sluice.loadtest.engine.Accounting;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * A self-contained HTML page (no script, no external file): the headlines, a table comparing the
 * runs, then each chart with the runs side by side, then the counts behind them.
 */
public final class HtmlReport {

  private HtmlReport() {}

  public static String render(List<RunSummary> runs) {
    return render(runs, "");
  }

  /** With a scenario's own section (an HTML fragment) after the comparison table. */
  public static String render(List<RunSummary> runs, String section) {
    return render(runs, null, section);
  }

  /**
   * Opening with the scenario's headlines ({@link Verdict}), then the comparison table and the
   * scenario's own section.
   *
   * @param verdicts the headlines, or null for a page without them
   */
  public static String render(List<RunSummary> runs, List<Verdict> verdicts, String section) {
    StringBuilder html = new StringBuilder();
    RunSummary first = runs.get(0);
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Sluice load test: ")
        .append(esc(first.scenario()))
        .append("</title><style>")
        .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222}")
        .append("table{border-collapse:collapse;margin:8px 0 20px}")
        .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .append("th:first-child,td:first-child{text-align:left}")
        .append(".grid{display:grid;grid-template-columns:repeat(")
        .append(runs.size())
        .append(",minmax(0,1fr));gap:8px}.grid h3{margin:4px 0}")
        .append(".grid svg{width:100%;height:auto;display:block}")
        .append(".wide{overflow-x:auto}")
        .append(Verdict.CSS)
        .append("</style></head><body>\n");
    html.append("<h1>Sluice load test: ").append(esc(first.scenario())).append("</h1>\n");
    if (verdicts != null) {
      html.append(Verdict.html("Verdict", verdicts));
    }
    html.append("<p>")
        .append(String.format(
            Locale.ROOT,
            "%d s of open-loop arrivals, transcode %.1f jobs/s offered at %d ms CPU each, seed %d, "
                + "service on %d cores. Latency is measured from each request's intended send time.",
            first.durationSeconds(),
            first.offeredTranscodePerSecond(),
            first.cpuMillis(),
            first.seed(),
            first.serverCores()))
        .append("</p>\n");
    comparison(html, runs);
    html.append(section);
    html.append("<div class=\"grid\">\n");
    for (RunSummary run : runs) {
      html.append("<h3>").append(esc(run.label())).append("</h3>");
    }
    row(html, runs, "CPU of the service process, % of the machine (target 70%)", Charts::cpu);
    row(html, runs, "In flight and queued per limiter", Charts::limiters);
    row(html, runs, "Responses per second by status", Charts::statuses);
    row(html, runs, "Latency percentiles per endpoint", Charts::latency);
    row(html, runs, "Outcome of every request", HtmlReport::outcomes);
    row(html, runs, "Latency by endpoint and outcome", HtmlReport::latencyTable);
    html.append("</div>\n</body></html>\n");
    return html.toString();
  }

  private static void row(
      StringBuilder html,
      List<RunSummary> runs,
      String caption,
      Function<RunSummary, String> cell) {
    for (RunSummary run : runs) {
      html.append("<div><h4>")
          .append(esc(caption))
          .append("</h4>")
          .append(cell.apply(run))
          .append("</div>\n");
    }
  }

  private static void comparison(StringBuilder html, List<RunSummary> runs) {
    html.append("<table><tr><th></th>");
    runs.forEach(r -> html.append("<th>").append(esc(r.label())).append("</th>"));
    html.append("</tr>\n");
    metric(html, runs, "requests sent", r -> Long.toString(r.accounting().totalSent()));
    for (String outcome : outcomesOf(runs)) {
      metric(html, runs, "ended " + outcome, r -> Long.toString(r.accounting().total(outcome)));
    }
    metric(html, runs, "retries", r -> Long.toString(r.accounting().retries()));
    metric(
        html, runs, "gave up after retries", r -> Long.toString(r.accounting().gaveUp()));
    metric(html, runs, "service CPU mean %", r -> num(r.cpu().processMean()));
    metric(html, runs, "service CPU max %", r -> num(r.cpu().processMax()));
    metric(html, runs, "machine CPU mean % (shared)", r -> num(r.cpu().systemMean()));
    metric(html, runs, "unloaded job service ms", r -> num(r.unloadedServiceMillis()));
    metric(
        html,
        runs,
        "admitted transcode service p50 ms",
        r -> pct(r.serviceMillis().get("transcode"), Percentiles::p50));
    metric(
        html,
        runs,
        "admitted transcode service p99 ms",
        r -> pct(r.serviceMillis().get("transcode"), Percentiles::p99));
    metric(html, runs, "p99 service / unloaded", r -> {
      Percentiles p = r.serviceMillis().get("transcode");
      return p == null ? "-" : num(p.p99() / r.unloadedServiceMillis());
    });
    metric(
        html,
        runs,
        "transcode 200 latency p99 ms",
        r -> pct(r.latencyMillis().get("transcode 200"), Percentiles::p99));
    metric(
        html,
        runs,
        "history 200 latency p99 ms",
        r -> pct(r.latencyMillis().get("history 200"), Percentiles::p99));
    html.append("</table>\n");
  }

  private static SortedSet<String> outcomesOf(List<RunSummary> runs) {
    TreeSet<String> outcomes = new TreeSet<>();
    runs.forEach(r -> r.accounting().outcomes().values().forEach(m -> outcomes.addAll(m.keySet())));
    return outcomes;
  }

  private static void metric(
      StringBuilder html, List<RunSummary> runs, String name, Function<RunSummary, String> value) {
    html.append("<tr><td>").append(esc(name)).append("</td>");
    runs.forEach(r -> html.append("<td>").append(esc(value.apply(r))).append("</td>"));
    html.append("</tr>\n");
  }

  private static String outcomes(RunSummary run) {
    Accounting a = run.accounting();
    TreeSet<String> columns = new TreeSet<>();
    a.outcomes().values().forEach(m -> columns.addAll(m.keySet()));
    StringBuilder t = new StringBuilder(
        "<div class=\"wide\"><table><tr><th>outcome of each request</th><th>sent</th>");
    columns.forEach(c -> t.append("<th>").append(esc(c)).append("</th>"));
    t.append("</tr>");
    for (Map.Entry<String, Long> stream : a.sent().entrySet()) {
      t.append("<tr><td>")
          .append(esc(stream.getKey()))
          .append("</td><td>")
          .append(stream.getValue())
          .append("</td>");
      Map<String, Long> counts = a.outcomes().getOrDefault(stream.getKey(), Map.of());
      columns.forEach(c -> t.append("<td>").append(counts.getOrDefault(c, 0L)).append("</td>"));
      t.append("</tr>");
    }
    t.append("</table></div><p>")
        .append(String.format(
            Locale.ROOT,
            "%d tries in all (%d retries, %d gave up); try statuses %s; %d tries abandoned at the end.",
            a.attempts(),
            a.retries(),
            a.gaveUp(),
            esc(a.attemptStatuses().toString()),
            a.abandonedAttempts()))
        .append("</p>");
    return t.toString();
  }

  private static String latencyTable(RunSummary run) {
    StringBuilder t = new StringBuilder(
        "<div class=\"wide\"><table><tr><th>latency ms (stream outcome)</th><th>n</th><th>p50</th>"
            + "<th>p90</th><th>p99</th><th>p99.9</th><th>max</th></tr>");
    run.latencyMillis()
        .forEach((key, p) -> t.append("<tr><td>")
            .append(esc(key))
            .append("</td><td>")
            .append(p.count())
            .append("</td><td>")
            .append(num(p.p50()))
            .append("</td><td>")
            .append(num(p.p90()))
            .append("</td><td>")
            .append(num(p.p99()))
            .append("</td><td>")
            .append(num(p.p999()))
            .append("</td><td>")
            .append(num(p.max()))
            .append("</td></tr>"));
    return t.append("</table></div>").toString();
  }

  private static String pct(Percentiles p, Function<Percentiles, Double> which) {
    return p == null ? "-" : num(which.apply(p));
  }

  private static String num(double v) {
    return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, v >= 100 ? "%.0f" : "%.2f", v);
  }

  public static String esc(String s) {
    return s.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
