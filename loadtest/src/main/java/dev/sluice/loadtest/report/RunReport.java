package dev.sluice.loadtest.report;

import static dev.sluice.loadtest.report.Numbers.f;
import static dev.sluice.loadtest.report.Numbers.num;

import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The report of open-loop runs against one service ({@link RunSummary}s): the headlines, a table
 * comparing the runs, the scenario's own blocks, then each chart and table with the runs side by
 * side. The {@code summary.json} fields {@code verdicts} and {@code runs} come with it.
 */
public final class RunReport {

  private RunReport() {}

  /**
   * The report of {@code runs}, to which the caller may add its own {@code summary.json} fields.
   *
   * @param verdicts the headlines, or null for a page without them
   * @param own the scenario's own blocks, after the comparison table
   */
  public static Report.Builder of(List<RunSummary> runs, List<Verdict> verdicts, List<Block> own) {
    RunSummary first = runs.get(0);
    Report.Builder report = Report.titled(first.scenario());
    if (verdicts != null) {
      report.add(new Block.Verdicts("Verdict", verdicts)).summary("verdicts", verdicts);
    }
    report
        .text(f(
            "%d s of open-loop arrivals, transcode %.1f jobs/s offered at %d ms CPU each, seed %d, "
                + "service on %d cores. Latency is measured from each request's intended send time.",
            first.durationSeconds(),
            first.offeredTranscodePerSecond(),
            first.cpuMillis(),
            first.seed(),
            first.serverCores()))
        .add(comparison(runs))
        .add(own)
        .summary("runs", runs);
    List<Block> grid = new ArrayList<>();
    runs.forEach(r -> grid.add(Block.Section.of(r.label())));
    row(grid, runs, "CPU of the service process, % of the machine (target 70%)", Charts::cpu);
    row(grid, runs, "In flight and queued per limiter", Charts::limiters);
    row(grid, runs, "Responses per second by status", Charts::statuses);
    row(grid, runs, "Latency percentiles per endpoint", Charts::latency);
    runs.forEach(r -> grid.add(Block.Section.of(
        "Outcome of every request", outcomes(r), new Block.Text(attempts(r.accounting())))));
    runs.forEach(r -> grid.add(Block.Section.of(
        "Latency by endpoint and outcome",
        latencyTable("latency ms (stream outcome)", r.latencyMillis()))));
    return report.add(new Block.Grid(runs.size(), grid));
  }

  private static void row(
      List<Block> grid, List<RunSummary> runs, String caption, Function<RunSummary, String> svg) {
    runs.forEach(r -> grid.add(new Block.Chart(caption, svg.apply(r))));
  }

  private static Block.Table comparison(List<RunSummary> runs) {
    Block.Table.Comparison<RunSummary> t = Block.Table.comparing(runs, RunSummary::label)
        .row("requests sent", r -> Long.toString(r.accounting().totalSent()));
    TreeSet<String> outcomes = new TreeSet<>();
    runs.forEach(r -> r.accounting().outcomes().values().forEach(m -> outcomes.addAll(m.keySet())));
    outcomes.forEach(o -> t.row("ended " + o, r -> Long.toString(r.accounting().total(o))));
    return t.row("retries", r -> Long.toString(r.accounting().retries()))
        .row("gave up after retries", r -> Long.toString(r.accounting().gaveUp()))
        .row("service CPU mean %", r -> num(r.cpu().processMean(), 2))
        .row("service CPU max %", r -> num(r.cpu().processMax(), 2))
        .row("machine CPU mean % (shared)", r -> num(r.cpu().systemMean(), 2))
        .row("unloaded job service ms", r -> num(r.unloadedServiceMillis(), 2))
        .row(
            "admitted transcode service p50 ms",
            r -> pct(r.serviceMillis(), "transcode", Percentiles::p50))
        .row(
            "admitted transcode service p99 ms",
            r -> pct(r.serviceMillis(), "transcode", Percentiles::p99))
        .row("p99 service / unloaded", r -> {
          Percentiles p = r.serviceMillis().get("transcode");
          return p == null ? "-" : num(p.p99() / r.unloadedServiceMillis(), 2);
        })
        .row(
            "transcode 200 latency p99 ms",
            r -> pct(r.latencyMillis(), "transcode 200", Percentiles::p99))
        .row(
            "history 200 latency p99 ms",
            r -> pct(r.latencyMillis(), "history 200", Percentiles::p99))
        .build();
  }

  private static Block.Table outcomes(RunSummary run) {
    Accounting a = run.accounting();
    TreeSet<String> columns = new TreeSet<>();
    a.outcomes().values().forEach(m -> columns.addAll(m.keySet()));
    List<String> header = new ArrayList<>(List.of("outcome of each request", "sent"));
    header.addAll(columns);
    Block.Table.Builder t = Block.Table.of(header.toArray(String[]::new));
    for (Map.Entry<String, Long> stream : a.sent().entrySet()) {
      List<Object> row = new ArrayList<>(List.of(stream.getKey(), stream.getValue()));
      Map<String, Long> counts = a.outcomes().getOrDefault(stream.getKey(), Map.of());
      columns.forEach(c -> row.add(counts.getOrDefault(c, 0L)));
      t.row(row.toArray());
    }
    return t.build();
  }

  private static String attempts(Accounting a) {
    return f(
        "%d tries in all (%d retries, %d gave up); try statuses %s; %d tries abandoned at the end.",
        a.attempts(), a.retries(), a.gaveUp(), a.attemptStatuses(), a.abandonedAttempts());
  }

  /** A row per named distribution: its count and its percentiles in milliseconds. */
  public static Block.Table latencyTable(String heading, Map<String, Percentiles> millis) {
    Block.Table.Builder t = Block.Table.of(heading, "n", "p50", "p90", "p99", "p99.9", "max");
    millis.forEach((key, p) -> t.row(
        key,
        p.count(),
        num(p.p50(), 2),
        num(p.p90(), 2),
        num(p.p99(), 2),
        num(p.p999(), 2),
        num(p.max(), 2)));
    return t.build();
  }

  private static String pct(
      Map<String, Percentiles> by, String key, Function<Percentiles, Double> which) {
    Percentiles p = by.get(key);
    return p == null ? "-" : num(which.apply(p), 2);
  }
}
