package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.report.HtmlReport;
import dev.sluice.loadtest.report.LimitChart;
import dev.sluice.loadtest.report.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The overload sweep and step test as a self-contained HTML page: the headlines ({@link
 * OverloadVerdict}), then per kind of job its capacity, tables per variant with a row per sweep
 * point, the targets beside the figures they judge (green met, red missed, the aim in the header),
 * then the step test's table and charts.
 */
final class OverloadReport {

  private OverloadReport() {}

  static String render(
      long durationSeconds,
      String loadBefore,
      String loadAfter,
      Map<String, Capacity> capacities,
      List<SweepResult> sweep,
      List<StepResult> step) {
    StringBuilder html = new StringBuilder();
    html.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Sluice load test: overload</title><style>")
        .append("body{font-family:system-ui,sans-serif;margin:24px;color:#222}")
        .append("table{border-collapse:collapse;margin:8px 0 20px}")
        .append("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .append("th{vertical-align:bottom}th small{font-weight:normal;color:#555;display:block}")
        .append("th:first-child,td:first-child{text-align:left}")
        .append("td{white-space:nowrap}.miss{background:#fde0dc}.met{background:#e3f4e1}")
        .append(".why{text-align:left;font-size:90%;white-space:normal;min-width:12em}")
        .append(".grid{display:grid;grid-template-columns:repeat(2,minmax(0,660px));gap:8px}")
        .append(".grid svg{width:100%;height:auto}h4{margin:4px 0}.wide{overflow-x:auto}")
        .append(Verdict.CSS)
        .append("</style></head><body>\n<h1>Sluice load test: overload</h1>\n")
        .append(Verdict.html("Verdict", OverloadVerdict.of(capacities.keySet(), sweep, step)))
        .append("<p>")
        .append(
            "Each row is one run against a fresh demo service: the 32 maintenance hosts send one kind "
                + "of job at a multiple of the capacity measured unloaded (a closed loop against the "
                + "service with Sluice off, so about 100 % CPU), each request tried once. Goodput is "
                + "judged against the capacity at the 70 % CPU target the limiters hold. Figures are over "
                + "the steady window (after the first fifth of the arrivals, at least 2 s); latencies run "
                + "from the intended send. Green: the target met; red: missed; no colour: the target does "
                + "not apply there.</p>\n<p>")
        .append(durationSeconds)
        .append(" s of arrivals per run, JDK ")
        .append(Runtime.version().feature())
        .append(
            ", load generator on the same machine. Load average (1 / 5 / 15 min) before the first run ")
        .append(esc(loadBefore))
        .append(", after the last ")
        .append(esc(loadAfter))
        .append(".</p>\n")
        .append("<p>Targets:</p>\n<ul>\n");
    for (OverloadTarget t : OverloadTarget.values()) {
      html.append("<li>").append(esc(t.aim())).append("</li>\n");
    }
    html.append("</ul>\n");
    for (Map.Entry<String, Capacity> kind : capacities.entrySet()) {
      html.append("<h2>").append(esc(kind.getKey())).append(" jobs</h2>\n");
      capacity(html, kind.getValue());
      Map<String, List<SweepResult>> byVariant = sweep.stream()
          .filter(r -> r.kind().equals(kind.getKey()))
          .collect(
              Collectors.groupingBy(SweepResult::variant, LinkedHashMap::new, Collectors.toList()));
      List<SweepResult> kindRuns =
          byVariant.values().stream().flatMap(List::stream).toList();
      if (!kindRuns.isEmpty()) {
        html.append("<div class=\"grid\"><div><h4>Goodput against offered load</h4>")
            .append(SweepChart.goodput(kindRuns))
            .append("</div><div><h4>Admitted p99 against offered load</h4>")
            .append(SweepChart.admittedP99(kindRuns))
            .append("</div></div>\n");
      }
      byVariant.forEach((variant, rows) -> {
        html.append("<h3>")
            .append(esc(variant))
            .append(": ")
            .append(esc(rows.get(0).description()))
            .append("</h3>\n");
        sweepTable(html, rows);
      });
      List<StepResult> steps =
          step.stream().filter(r -> r.kind().equals(kind.getKey())).toList();
      if (!steps.isEmpty()) {
        stepSection(html, steps);
      }
    }
    return html.append("</body></html>\n").toString();
  }

  private static void capacity(StringBuilder html, Capacity c) {
    html.append("<p>Capacity ")
        .append(num(c.perSecond()))
        .append(" jobs/s (")
        .append(
            c.measured()
                ? "measured; " + num(c.derivedPerSecond()) + " derived from "
                : "not measured: derived from ")
        .append(c.cores())
        .append(" cores x 1000 / mean CPU ms), ")
        .append(num(c.atTarget()))
        .append(" jobs/s at the 70 % target. Unloaded latency, one job at a time: p50 ")
        .append(num(c.unloadedP50Millis()))
        .append(" ms, p99 ")
        .append(num(c.unloadedP99Millis()))
        .append(" ms over ")
        .append(c.unloadedJobs())
        .append(" jobs.</p>\n");
  }

  /**
   * Two tables, so that neither runs off the page: the figures the targets judge (with their aims),
   * then the counts behind them.
   */
  private static void sweepTable(StringBuilder html, List<SweepResult> rows) {
    html.append("<div class=\"wide\"><table><tr><th>load</th><th>offered /s</th>")
        .append("<th>goodput /s</th><th>of capacity</th><th>jobs of capacity at 70%</th>")
        .append(target("work of capacity at 70%", OverloadTarget.GOODPUT))
        .append("<th>admitted p50 ms</th><th>admitted p99 ms</th>")
        .append(target("p99 / unloaded p99", OverloadTarget.ADMITTED_P99))
        .append("<th>429 p50 ms</th><th>429 p95 ms</th>")
        .append(target("rejections within 50 ms", OverloadTarget.FAST_REJECTIONS))
        .append(target("CPU mean %", OverloadTarget.CPU_MEAN))
        .append(target("CPU sd", OverloadTarget.CPU_SPREAD))
        .append("</tr>\n");
    for (SweepResult r : rows) {
      html.append("<tr><td>").append(OverloadRun.num(r.point())).append("x</td>");
      if (r.figures() == null) {
        html.append("<td colspan=\"13\" class=\"miss why\">not run: ")
            .append(esc(r.error()))
            .append("</td></tr>\n");
        continue;
      }
      RunFigures f = r.figures();
      cell(html, num(r.offeredPerSecond()), Optional.empty());
      cell(html, num(f.goodputPerSecond()), Optional.empty());
      cell(html, pct(f.goodputOfCapacity()), Optional.empty());
      cell(html, pct(f.goodputOfTarget()), Optional.empty());
      cell(html, pct(f.workOfTarget()), OverloadTarget.GOODPUT.judge(r));
      cell(html, num(f.admitted().p50()), Optional.empty());
      cell(html, num(f.admitted().p99()), Optional.empty());
      cell(html, times(f.admittedP99OverUnloaded()), OverloadTarget.ADMITTED_P99.judge(r));
      cell(html, num(f.rejectedP50Millis()), Optional.empty());
      cell(html, num(f.rejectedP95Millis()), Optional.empty());
      cell(html, pct(f.rejectedWithin50Share()), OverloadTarget.FAST_REJECTIONS.judge(r));
      cell(html, num(f.processCpu().mean()), OverloadTarget.CPU_MEAN.judge(r));
      cell(html, num(f.processCpu().stddev()), OverloadTarget.CPU_SPREAD.judge(r));
      html.append("</tr>\n");
    }
    html.append("</table></div>\n");
    if (rows.stream().allMatch(r -> r.figures() == null)) {
      return;
    }
    html.append("<div class=\"wide\"><table><tr><th>load</th><th>p99 ms by size</th>")
        .append("<th>machine CPU %</th><th>CPU per job ms</th><th>jobs' share of CPU</th>")
        .append("<th>sent</th><th>2xx</th><th>429</th><th>5xx</th>")
        .append("<th>other</th><th>limit mean</th><th>rejections by reason</th>")
        .append("<th>load avg after</th></tr>\n");
    for (SweepResult r : rows) {
      if (r.figures() == null) {
        continue;
      }
      RunFigures f = r.figures();
      html.append("<tr><td>").append(OverloadRun.num(r.point())).append("x</td>");
      cell(
          html,
          f.admittedP99BySize().entrySet().stream()
              .map(e -> e.getKey() + " " + num(e.getValue()))
              .collect(Collectors.joining(", ")),
          Optional.empty());
      cell(html, num(f.machineCpu().mean()), Optional.empty());
      cell(html, num(f.jobCpuMillis()), Optional.empty());
      cell(html, pct(f.jobsShareOfCpu()), Optional.empty());
      RunFigures.Counts c = f.counts();
      for (long n : new long[] {c.sent(), c.ok(), c.rejected(), c.serverErrors(), c.other()}) {
        cell(html, Long.toString(n), Optional.empty());
      }
      cell(html, num(f.limit().mean()), Optional.empty());
      html.append("<td class=\"why\">").append(esc(reasons(f))).append("</td>");
      cell(html, r.loadAverageAfter(), Optional.empty());
      html.append("</tr>\n");
    }
    html.append("</table></div>\n");
  }

  private static void stepSection(StringBuilder html, List<StepResult> steps) {
    StepLoad load = steps.get(0).load();
    html.append("<h3>step test</h3>\n<p>")
        .append(num(load.baseRate()))
        .append(" jobs/s (1x), ")
        .append(num(load.peakRate()))
        .append(" jobs/s (10x) from ")
        .append(num(load.upAt()))
        .append(" s to ")
        .append(num(load.downAt()))
        .append(" s, 1x again until ")
        .append(num(load.end()))
        .append(" s. Settling: seconds from a step until every later reading of its phase is in the"
            + " band (an upper bound at the 1 s resolution of the readings; - : not within the phase)."
            + " On few cores one job is a large part of a second and 1 s readings scatter whatever"
            + " the limit does; the CPU's settling is also given on means of 2 s."
            + " Admitted p99 is read per second of sending.</p>\n");
    html.append("<div class=\"wide\"><table><tr><th>variant</th>")
        .append(target("CPU settled after 1x to 10x, s", OverloadTarget.STEP_CPU))
        .append("<th>CPU settled after 10x to 1x, s</th>")
        .append("<th>on 2 s means: after 1x to 10x, s</th><th>after 10x to 1x, s</th>")
        .append("<th>p99 within 2x unloaded after 1x to 10x, s</th>")
        .append(
            "<th>p99 within 2x unloaded after 10x to 1x, s</th><th>10x goodput of capacity at 70%</th>")
        .append("<th>10x admitted p99 ms</th><th>10x CPU mean %</th>")
        .append(target("5xx", OverloadTarget.STEP_NO_5XX))
        .append("<th>rejections by reason</th><th>load avg after</th></tr>\n");
    for (StepResult r : steps) {
      html.append("<tr><td>").append(esc(r.variant())).append("</td>");
      if (r.high() == null) {
        html.append("<td colspan=\"12\" class=\"miss why\">not run: ")
            .append(esc(r.error()))
            .append("</td></tr>\n");
        continue;
      }
      cell(html, num(r.cpuSettleUp()), OverloadTarget.STEP_CPU.judge(r));
      cell(html, num(r.cpuSettleDown()), Optional.empty());
      cell(html, num(r.cpuSettleUp2s()), Optional.empty());
      cell(html, num(r.cpuSettleDown2s()), Optional.empty());
      cell(html, num(r.p99SettleUp()), Optional.empty());
      cell(html, num(r.p99SettleDown()), Optional.empty());
      cell(html, pct(r.high().goodputOfTarget()), Optional.empty());
      cell(html, num(r.high().admitted().p99()), Optional.empty());
      cell(html, num(r.high().processCpu().mean()), Optional.empty());
      cell(
          html,
          Long.toString(r.high().counts().serverErrors()),
          OverloadTarget.STEP_NO_5XX.judge(r));
      html.append("<td class=\"why\">").append(esc(reasons(r.high()))).append("</td>");
      cell(html, r.loadAverageAfter(), Optional.empty());
      html.append("</tr>\n");
    }
    html.append("</table></div>\n<div class=\"grid\">\n");
    for (StepResult r : steps) {
      if (r.run() != null) {
        html.append("<div><h4>")
            .append(esc(r.kind() + " step: " + r.variant()))
            .append("</h4>")
            .append(LimitChart.of(r.run(), limiterName(r)))
            .append("</div>\n");
      }
    }
    html.append("</div>\n");
  }

  private static String limiterName(StepResult r) {
    return r.variant().startsWith("netflix-") ? r.variant() : "transcode";
  }

  /** One line per finished run on the console. */
  static void print(SweepResult r) {
    String head = String.format(
        Locale.ROOT, "%-5s %4sx %-17s", r.kind(), OverloadRun.num(r.point()), r.variant());
    if (r.figures() == null) {
      System.out.println(head + " NOT RUN: " + r.error());
      return;
    }
    RunFigures f = r.figures();
    System.out.printf(
        Locale.ROOT,
        "%s goodput %.1f/s (%.0f%% of capacity at 70%%, work %.0f%%)  admitted p50/p99"
            + " %.0f/%.0f ms (%.1fx unloaded)  429 p50/p95 %.0f/%.0f ms, %.0f%% of rejections in 50 ms"
            + "  CPU %.1f%% sd %.1f (%.0f ms a job, %.0f%% in jobs)  5xx %d  load %s%n",
        head,
        f.goodputPerSecond(),
        100 * f.goodputOfTarget(),
        100 * f.workOfTarget(),
        f.admitted().p50(),
        f.admitted().p99(),
        f.admittedP99OverUnloaded(),
        f.rejectedP50Millis(),
        f.rejectedP95Millis(),
        100 * f.rejectedWithin50Share(),
        f.processCpu().mean(),
        f.processCpu().stddev(),
        f.jobCpuMillis(),
        100 * f.jobsShareOfCpu(),
        f.counts().serverErrors(),
        r.loadAverageAfter());
  }

  static void print(StepResult r) {
    String head = String.format(Locale.ROOT, "%-5s step  %-17s", r.kind(), r.variant());
    if (r.high() == null) {
      System.out.println(head + " NOT RUN: " + r.error());
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "%s CPU settled %s s after the step up, %s s after the step down (2 s means: %s / %s);"
            + " p99 within 2x unloaded %s s / %s s  5xx %d  load %s%n",
        head,
        num(r.cpuSettleUp()),
        num(r.cpuSettleDown()),
        num(r.cpuSettleUp2s()),
        num(r.cpuSettleDown2s()),
        num(r.p99SettleUp()),
        num(r.p99SettleDown()),
        r.high().counts().serverErrors(),
        r.loadAverageAfter());
  }

  private static String reasons(RunFigures f) {
    return f.reasons().entrySet().stream()
        .map(e -> e.getKey() + ": " + e.getValue())
        .collect(Collectors.joining(", "));
  }

  private static String target(String caption, OverloadTarget t) {
    return "<th>" + esc(caption) + "<small>aim " + esc(t.shortAim()) + "</small></th>";
  }

  private static void cell(StringBuilder html, String value, Optional<Boolean> met) {
    html.append(met.isEmpty() ? "<td>" : met.get() ? "<td class=\"met\">" : "<td class=\"miss\">")
        .append(esc(value))
        .append("</td>");
  }

  static String num(double v) {
    return Double.isNaN(v)
        ? "-"
        : String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.0f" : "%.1f", v);
  }

  private static String times(double ratio) {
    return Double.isNaN(ratio) ? "-" : num(ratio) + "x";
  }

  private static String pct(double share) {
    return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }

  private static String esc(String s) {
    return HtmlReport.esc(s == null ? "" : s);
  }
}
