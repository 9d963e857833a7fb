package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.report.Charts;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/**
 * One figure of the sweep against the offered load, a line per variant: the shape the papers draw
 * (goodput flat past capacity, or collapsing; latency flat, or climbing to the queue timeout).
 */
final class SweepChart {

  private SweepChart() {}

  /** Goodput over the capacity at the 70 % target, in percent. */
  static String goodput(List<SweepResult> kind) {
    return chart(
        kind, "goodput (work), % of capacity at 70% CPU", false, f -> 100 * f.workOfTarget());
  }

  /** Admitted p99 over the unloaded p99, on a log axis. */
  static String admittedP99(List<SweepResult> kind) {
    return chart(
        kind,
        "admitted p99 / unloaded p99 (x, log scale)",
        true,
        RunFigures::admittedP99OverUnloaded);
  }

  private static String chart(
      List<SweepResult> kind, String yTitle, boolean log, ToDoubleFunction<RunFigures> figure) {
    XYChart chart = new XYChartBuilder()
        .width(640)
        .height(300)
        .xAxisTitle("offered load, x capacity")
        .yAxisTitle(yTitle)
        .build();
    Charts.style(chart.getStyler());
    chart.getStyler().setYAxisLogarithmic(log);
    Map<String, List<SweepResult>> byVariant = kind.stream()
        .filter(r -> r.figures() != null)
        .collect(
            Collectors.groupingBy(SweepResult::variant, LinkedHashMap::new, Collectors.toList()));
    byVariant.forEach((variant, runs) -> {
      List<Double> x = new ArrayList<>();
      List<Double> y = new ArrayList<>();
      for (SweepResult r : runs) {
        double v = figure.applyAsDouble(r.figures());
        if (Double.isFinite(v) && (!log || v > 0)) {
          x.add(r.point());
          y.add(v);
        }
      }
      if (!x.isEmpty()) {
        chart.addSeries(variant, x, y);
      }
    });
    if (chart.getSeriesMap().isEmpty()) {
      chart.getStyler().setYAxisLogarithmic(false);
      chart.addSeries("no figures", List.of(0.0), List.of(0.0));
    }
    return Charts.svg(chart);
  }
}
