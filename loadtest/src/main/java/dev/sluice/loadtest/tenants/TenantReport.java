package dev.sluice.loadtest.tenants;

import static dev.sluice.loadtest.report.Numbers.num;
import static dev.sluice.loadtest.report.Numbers.pct;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Charts;
import dev.sluice.loadtest.sampling.Percentiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;

/**
 * The blocks of the report that the {@code greedy-host} and {@code priority} scenarios add: their
 * figures per variant side by side, the targets, and the per-host share chart.
 */
final class TenantReport {

  private TenantReport() {}

  /** The blocks for the figures of one scenario's variants (all of one record type). */
  static List<Block> section(List<Object> figures) {
    if (figures.isEmpty()) {
      return List.of();
    }
    if (figures.get(0) instanceof GreedyHostFigures) {
      return greedyHost(figures.stream().map(GreedyHostFigures.class::cast).toList());
    }
    return priority(figures.stream().map(PriorityFigures.class::cast).toList());
  }

  private static List<Block> greedyHost(List<GreedyHostFigures> runs) {
    return List.of(Block.Section.of(
        "Greedy host: fairness over the 32 maintenance hosts",
        new Block.Text("Targets: Jain's index at least 0.95, every polite host served at least 90%"
            + " of its max-min fair share (of what the 32 hosts were served in all). Queue waits"
            + " are the server-reported queuedMillis of served jobs."),
        Block.Table.comparing(runs, GreedyHostFigures::variant)
            .row("Jain's index (served / fair share)", g -> num(g.jainIndex(), 3))
            .row("Jain's index (plain served counts)", g -> num(g.jainIndexServed(), 3))
            .row("polite hosts: lowest share of fair", g -> pct(g.politeMinShareOfFair()))
            .row("polite hosts under 90% of fair", g -> Long.toString(g.politeBelow90()))
            .row(
                "polite hosts: jobs served (sum)",
                g -> Long.toString(g.hosts().values().stream()
                    .filter(h -> !h.greedy())
                    .mapToLong(GreedyHostFigures.Host::served)
                    .sum()))
            .row("polite queue wait p50 / p99 ms", g -> twoOf(g.politeQueueWaitMillis()))
            .row(
                "greedy host: served / sent",
                g -> greedy(g).served() + " / " + greedy(g).requests())
            .row("greedy host: share of fair", g -> pct(greedy(g).shareOfFair()))
            .row(
                "greedy host: tries 429 / requests ended 429",
                g -> g.greedy429Tries() + " / " + g.greedy429Requests())
            .row("greedy queue wait p50 / p99 ms", g -> twoOf(g.greedyQueueWaitMillis()))
            .row(
                "rescue (critical): served / sent",
                g -> g.rescue().served() + " / " + g.rescue().requests())
            .row(
                "rescue: tries not 200",
                g -> g.rescue().notServedTries() + " " + g.rescue().reasons())
            .row(
                "rescue latency p50 / p99 ms",
                g -> g.rescue().latencyMillis() == null ? "-" : twoOf(g.rescue().latencyMillis()))
            .row("rescue queue wait p50 / p99 ms", g -> twoOf(g.rescue().queueWaitMillis()))
            .row("target met", g -> g.targetMet() ? "yes" : "no")
            .row("properties the service ignored", g -> String.join(", ", g.ignoredProperties()))
            .build(),
        new Block.Chart(
            "Jobs served per host, % of its max-min fair share (host 01 is the greedy one)",
            shareChart(runs))));
  }

  private static List<Block> priority(List<PriorityFigures> runs) {
    return List.of(Block.Section.of(
        "Priority: critical jobs beside sheddable overload",
        new Block.Text("Target: no critical try answered anything but 200 while sheddable jobs are"
            + " shed; a critical job's queue wait near one service time."),
        Block.Table.comparing(runs, PriorityFigures::variant)
            .row(
                "critical: served / sent",
                p -> p.critical().served() + " / " + p.critical().requests())
            .row(
                "critical: tries 429 / 504 / other",
                p -> p.critical().tries429() + " / " + p.critical().tries504() + " / "
                    + p.critical().otherNotServedTries())
            .row(
                "critical queue wait p50 / p99 / max ms",
                p -> twoOf(p.critical().queueWaitMillis()) + " / "
                    + num(p.critical().queueWaitMillis().max(), 3))
            .row(
                "critical wait p99 / unloaded service time",
                p -> num(p.criticalWaitPerServiceTime(), 3))
            .row(
                "critical latency p99 ms (from intended send)",
                p -> p99(p.critical().latencyMillis()))
            .row("critical rejections", p -> p.critical().reasons().toString())
            .row(
                "sheddable: served / sent (shed)",
                p -> p.sheddable().served() + " / " + p.sheddable().requests() + " ("
                    + p.sheddable().shed() + ")")
            .row(
                "sheddable: tries 429 / 504",
                p -> p.sheddable().tries429() + " / " + p.sheddable().tries504())
            .row("sheddable rejections", p -> p.sheddable().reasons().toString())
            .row("target met", p -> p.targetMet() ? "yes" : "no")
            .row("properties the service ignored", p -> String.join(", ", p.ignoredProperties()))
            .build()));
  }

  /** {@code p50 / p99}. */
  private static String twoOf(Percentiles p) {
    return num(p.p50(), 3) + " / " + num(p.p99(), 3);
  }

  static String shareChart(List<GreedyHostFigures> runs) {
    CategoryChart chart = new CategoryChartBuilder()
        .width(1320)
        .height(340)
        .xAxisTitle("maintenance host")
        .yAxisTitle("% of fair share")
        .build();
    Charts.style(chart.getStyler());
    chart.getStyler().setOverlapped(false);
    for (GreedyHostFigures run : runs) {
      List<String> hosts = new ArrayList<>();
      List<Double> shares = new ArrayList<>();
      for (Map.Entry<String, GreedyHostFigures.Host> host : run.hosts().entrySet()) {
        hosts.add(host.getKey().substring(GreedyHostTraffic.HOST_PREFIX.length()));
        shares.add(100 * host.getValue().shareOfFair());
      }
      chart.addSeries(run.variant(), hosts, shares);
    }
    return Charts.svg(chart);
  }

  private static GreedyHostFigures.Host greedy(GreedyHostFigures g) {
    return g.hosts().get(GreedyHostTraffic.GREEDY_HOST);
  }

  private static String p99(Percentiles p) {
    return p == null ? "-" : num(p.p99(), 3);
  }
}
