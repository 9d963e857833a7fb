package dev.sluice.loadtest.overload;

import static dev.sluice.loadtest.report.Numbers.num;
import static dev.sluice.loadtest.report.Numbers.pct;
import static dev.sluice.loadtest.report.Numbers.times;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Block.Cell;
import dev.sluice.loadtest.report.Block.Table.Column;
import dev.sluice.loadtest.report.LimitChart;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The overload sweep and step test's report: the headlines ({@link OverloadVerdict}, and through
 * the gRPC door {@link DoorVerdict}), then per kind of job its capacity, tables per variant with a
 * row per sweep point, the targets beside the figures they judge (green met, red missed, the aim in
 * the header), the gRPC door's threads and pushback ({@link DoorReport}), then the step test's
 * table and charts.
 */
final class OverloadReport {

  private OverloadReport() {}

  /**
   * The run's headlines: the sweep's and the step test's ({@link OverloadVerdict}), then the gRPC
   * door's ({@link DoorVerdict}), shown in the report and written to its summary alike.
   */
  static List<Verdict> verdicts(
      Map<String, Capacity> capacities,
      List<SweepResult> sweep,
      List<StepResult> step,
      List<Verdict> doorVerdicts) {
    List<Verdict> verdicts = new ArrayList<>(OverloadVerdict.of(capacities.keySet(), sweep, step));
    verdicts.addAll(doorVerdicts);
    return List.copyOf(verdicts);
  }

  /** @param verdicts the run's headlines ({@link #verdicts}) */
  static Report.Builder of(
      long durationSeconds,
      String loadBefore,
      String loadAfter,
      Map<String, Capacity> capacities,
      List<SweepResult> sweep,
      List<StepResult> step,
      List<Verdict> verdicts) {
    Report.Builder report = Report.titled("overload")
        .add(new Block.Verdicts("Verdict", verdicts))
        .text("Each row is one run against a fresh demo service: the 32 maintenance hosts send one"
            + " kind of job at a multiple of the capacity measured unloaded (a closed loop against"
            + " the service with Sluice off, so about 100 % CPU), each request tried once. Goodput"
            + " is judged against the capacity at the 70 % CPU target the limiters hold. Figures are"
            + " over the steady window (after the first fifth of the arrivals, at least 2 s);"
            + " latencies run from the intended send. Green: the target met; red: missed; no"
            + " colour: the target does not apply there.")
        .text(
            durationSeconds + " s of arrivals per run, JDK " + Runtime.version().feature()
                + ", load generator on the same machine. Load average (1 / 5 / 15 min) before the"
                + " first run " + loadBefore + ", after the last " + loadAfter + ".")
        .text("Targets:")
        .add(new Block.Items(
            Arrays.stream(OverloadTarget.values()).map(OverloadTarget::aim).toList()));
    for (Map.Entry<String, Capacity> kind : capacities.entrySet()) {
      List<Block> blocks = new ArrayList<>(List.of(capacity(kind.getValue())));
      Map<String, List<SweepResult>> byVariant = sweep.stream()
          .filter(r -> r.kind().equals(kind.getKey()))
          .collect(
              Collectors.groupingBy(SweepResult::variant, LinkedHashMap::new, Collectors.toList()));
      List<SweepResult> kindRuns =
          byVariant.values().stream().flatMap(List::stream).toList();
      if (!kindRuns.isEmpty()) {
        blocks.add(new Block.Grid(
            2,
            List.of(
                new Block.Chart("Goodput against offered load", SweepChart.goodput(kindRuns)),
                new Block.Chart(
                    "Admitted p99 against offered load", SweepChart.admittedP99(kindRuns)))));
      }
      byVariant.forEach((variant, rows) -> blocks.add(new Block.Section(
          variant + ": " + rows.get(0).description(), List.copyOf(sweepTables(rows)))));
      DoorReport.section(kindRuns).ifPresent(blocks::add);
      List<StepResult> steps =
          step.stream().filter(r -> r.kind().equals(kind.getKey())).toList();
      if (!steps.isEmpty()) {
        blocks.add(stepSection(steps));
      }
      report.add(new Block.Section(kind.getKey() + " jobs", blocks));
    }
    return report;
  }

  private static Block capacity(Capacity c) {
    return new Block.Text("Capacity " + num(c.perSecond()) + " jobs/s ("
        + (c.measured()
            ? "measured; " + num(c.derivedPerSecond()) + " derived from "
            : "not measured: derived from ")
        + c.cores() + " cores x 1000 / mean CPU ms), " + num(c.atTarget())
        + " jobs/s at the 70 % target. Unloaded latency, one job at a time: p50 "
        + num(c.unloadedP50Millis()) + " ms, p99 " + num(c.unloadedP99Millis()) + " ms over "
        + c.unloadedJobs() + " jobs.");
  }

  /**
   * Two tables, so that neither runs off the page: the figures the targets judge (with their aims),
   * then the counts behind them.
   */
  private static List<Block.Table> sweepTables(List<SweepResult> rows) {
    Column<SweepResult> load = Column.of("load", r -> OverloadRun.num(r.point()) + "x");
    Block.Table judged = Block.Table.of(
        List.of(
            load,
            Column.of("offered /s", r -> num(r.offeredPerSecond())),
            figure("goodput /s", f -> num(f.goodputPerSecond())),
            figure("of capacity", f -> pct(f.goodputOfCapacity())),
            figure("jobs of capacity at 70%", f -> pct(f.goodputOfTarget())),
            judged("work of capacity at 70%", OverloadTarget.GOODPUT, f -> pct(f.workOfTarget())),
            figure("admitted p50 ms", f -> num(f.admitted().p50())),
            figure("admitted p99 ms", f -> num(f.admitted().p99())),
            judged(
                "p99 / unloaded p99",
                OverloadTarget.ADMITTED_P99,
                f -> times(f.admittedP99OverUnloaded())),
            figure("429 p50 ms", f -> num(f.rejectedP50Millis())),
            figure("429 p95 ms", f -> num(f.rejectedP95Millis())),
            judged(
                "rejections within 50 ms",
                OverloadTarget.FAST_REJECTIONS,
                f -> pct(f.rejectedWithin50Share())),
            judged(
                "CPU mean %", OverloadTarget.CPU_MEAN, f -> num(f.processCpu().mean())),
            judged("CPU sd", OverloadTarget.CPU_SPREAD, f -> num(f.processCpu().stddev()))),
        rows,
        1,
        r -> r.figures() == null ? String.valueOf(r.error()) : null);
    List<SweepResult> ran = rows.stream().filter(r -> r.figures() != null).toList();
    if (ran.isEmpty()) {
      return List.of(judged);
    }
    Block.Table counts = Block.Table.of(
        List.of(
            load,
            figure(
                "p99 ms by size",
                f -> f.admittedP99BySize().entrySet().stream()
                    .map(e -> e.getKey() + " " + num(e.getValue()))
                    .collect(Collectors.joining(", "))),
            figure("machine CPU %", f -> num(f.machineCpu().mean())),
            figure("CPU per job ms", f -> num(f.jobCpuMillis())),
            figure("jobs' share of CPU", f -> pct(f.jobsShareOfCpu())),
            figure("sent", f -> f.counts().sent()),
            figure("2xx", f -> f.counts().ok()),
            figure("429", f -> f.counts().rejected()),
            figure("5xx", f -> f.counts().serverErrors()),
            figure("other", f -> f.counts().other()),
            figure("limit mean", f -> num(f.limit().mean())),
            figure("rejections by reason", f -> Cell.of(reasons(f)).marked(Cell.Mark.PROSE)),
            Column.of("load avg after", SweepResult::loadAverageAfter)),
        ran);
    return List.of(judged, counts);
  }

  private static Column<SweepResult> figure(String header, Function<RunFigures, ?> value) {
    return Column.of(header, r -> value.apply(r.figures()));
  }

  private static Column<SweepResult> judged(
      String header, OverloadTarget target, Function<RunFigures, String> value) {
    return Column.judged(header, target.shortAim(), r -> value.apply(r.figures()), target::judge);
  }

  private static Block stepSection(List<StepResult> steps) {
    StepLoad load = steps.get(0).load();
    List<Block> charts = new ArrayList<>();
    for (StepResult r : steps) {
      if (r.run() != null) {
        charts.add(new Block.Chart(
            r.kind() + " step: " + r.variant(), LimitChart.of(r.run(), limiterName(r))));
      }
    }
    return Block.Section.of(
        "step test",
        new Block.Text(num(load.baseRate()) + " jobs/s (1x), " + num(load.peakRate())
            + " jobs/s (10x) from " + num(load.upAt()) + " s to " + num(load.downAt())
            + " s, 1x again until " + num(load.end()) + " s. Settling: seconds from a step until"
            + " every later reading of its phase is in the band (an upper bound at the 1 s"
            + " resolution of the readings; - : not within the phase). On few cores one job is a"
            + " large part of a second and 1 s readings scatter whatever the limit does; the CPU's"
            + " settling is also given on means of 2 s. Admitted p99 is read per second of"
            + " sending."),
        stepTable(steps),
        new Block.Grid(2, charts));
  }

  private static Block.Table stepTable(List<StepResult> steps) {
    return Block.Table.of(
        List.of(
            Column.of("variant", StepResult::variant),
            Column.judged(
                "CPU settled after 1x to 10x, s",
                OverloadTarget.STEP_CPU.shortAim(),
                r -> num(r.cpuSettleUp()),
                OverloadTarget.STEP_CPU::judge),
            Column.of("CPU settled after 10x to 1x, s", r -> num(r.cpuSettleDown())),
            Column.of("on 2 s means: after 1x to 10x, s", r -> num(r.cpuSettleUp2s())),
            Column.of("after 10x to 1x, s", r -> num(r.cpuSettleDown2s())),
            Column.of("p99 within 2x unloaded after 1x to 10x, s", r -> num(r.p99SettleUp())),
            Column.of("p99 within 2x unloaded after 10x to 1x, s", r -> num(r.p99SettleDown())),
            Column.of("10x goodput of capacity at 70%", r -> pct(r.high().goodputOfTarget())),
            Column.of("10x admitted p99 ms", r -> num(r.high().admitted().p99())),
            Column.of("10x CPU mean %", r -> num(r.high().processCpu().mean())),
            Column.judged(
                "5xx",
                OverloadTarget.STEP_NO_5XX.shortAim(),
                r -> r.high().counts().serverErrors(),
                OverloadTarget.STEP_NO_5XX::judge),
            Column.of(
                "rejections by reason", r -> Cell.of(reasons(r.high())).marked(Cell.Mark.PROSE)),
            Column.of("load avg after", StepResult::loadAverageAfter)),
        steps,
        1,
        r -> r.high() == null ? String.valueOf(r.error()) : null);
  }

  private static String limiterName(StepResult r) {
    return r.variant().startsWith("netflix-") ? r.variant() : "transcode";
  }

  /** A finished run on the console: its rows of the report's tables. */
  static void print(SweepResult r) {
    sweepTables(List.of(r)).forEach(t -> echo(r.kind() + " " + r.variant(), t));
  }

  static void print(StepResult r) {
    echo(r.kind() + " step", stepTable(List.of(r)));
  }

  private static void echo(String head, Block.Table table) {
    table.lines().forEach(line -> System.out.println(head + ": " + line));
  }

  private static String reasons(RunFigures f) {
    return f.reasons().entrySet().stream()
        .map(e -> e.getKey() + ": " + e.getValue())
        .collect(Collectors.joining(", "));
  }
}
