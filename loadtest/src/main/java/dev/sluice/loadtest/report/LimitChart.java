package dev.sluice.loadtest.report;

import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.sampling.ServerSample;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;

/**
 * The adaptive comparison's chart: the service's CPU (left axis, with the 70 % target) and the
 * limiter's limit from {@code /sluice} (right axis) over one run, so a reader sees the controller
 * move the limit and the CPU follow.
 */
public final class LimitChart {

  private LimitChart() {}

  public static String of(RunSummary run, String limiterName) {
    XYChart chart = Charts.xy("CPU and limit", "% CPU");
    List<Double> t = new ArrayList<>();
    List<Double> cpu = new ArrayList<>();
    List<Double> lt = new ArrayList<>();
    List<Double> limit = new ArrayList<>();
    for (ServerSample s : run.samples()) {
      if (s.second() < 1) {
        continue; // the first reading covers the JVM's start-up, not the run
      }
      t.add(s.second());
      cpu.add(s.processCpuPercent());
      ServerSample.LimiterLoad load = s.limiters().get(limiterName);
      if (load != null && load.limit() >= 0) {
        lt.add(s.second());
        limit.add((double) load.limit());
      }
    }
    if (t.isEmpty()) {
      Charts.line(chart, "no samples", List.of(0.0), List.of(0.0));
      return Charts.svg(chart);
    }
    Charts.line(chart, "service CPU %", t, cpu).setLineColor(new Color(0x1f, 0x77, 0xb4));
    Charts.cpuTarget(chart, t);
    if (!limit.isEmpty()) {
      XYSeries series = Charts.line(chart, limiterName + " limit (right axis)", lt, limit);
      series.setYAxisGroup(1);
      series.setLineColor(new Color(0x2c, 0xa0, 0x2c));
      chart.setYAxisGroupTitle(1, "limit (permits)");
      chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
      double top = limit.stream().mapToDouble(Double::doubleValue).max().orElse(1);
      chart.getStyler().setYAxisMin(1, 0.0).setYAxisMax(1, Math.max(2.0, Math.ceil(top * 1.2)));
    }
    chart.getStyler().setYAxisMin(0, 0.0).setYAxisMax(0, 100.0);
    return Charts.svg(chart);
  }
}
