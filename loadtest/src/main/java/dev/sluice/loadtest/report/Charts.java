package dev.sluice.loadtest.report;

import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.sampling.ServerSample;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The report's charts, drawn by XChart as SVG text to inline into the HTML. */
public final class Charts {

  static final double CPU_TARGET_PERCENT = 70;
  private static final int WIDTH = 640;
  private static final int HEIGHT = 300;

  private Charts() {}

  static String cpu(RunSummary run) {
    XYChart chart = xy("CPU, % of the machine", "% CPU");
    List<Double> t = new ArrayList<>();
    List<Double> process = new ArrayList<>();
    List<Double> system = new ArrayList<>();
    for (ServerSample s : run.samples()) {
      if (s.second() < 1) {
        continue; // the first reading covers the JVM's start-up, not the run
      }
      t.add(s.second());
      process.add(s.processCpuPercent());
      system.add(s.systemCpuPercent());
    }
    if (!t.isEmpty()) {
      line(chart, "service process", t, process);
      line(chart, "whole machine (shared)", t, system).setLineColor(Color.LIGHT_GRAY);
      cpuTarget(chart, t);
    }
    chart.getStyler().setYAxisMin(0.0).setYAxisMax(100.0);
    return svg(chart);
  }

  /** The 70 % CPU target as a dashed red line across the seconds {@code t} covers. */
  public static void cpuTarget(XYChart chart, List<Double> t) {
    XYSeries target = line(
        chart,
        "target 70%",
        List.of(t.get(0), t.get(t.size() - 1)),
        List.of(CPU_TARGET_PERCENT, CPU_TARGET_PERCENT));
    target.setLineColor(Color.RED);
    target.setLineStyle(new BasicStroke(
        1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
  }

  static String limiters(RunSummary run) {
    XYChart chart = xy("In flight and queued, from /sluice", "requests in flight or queued");
    TreeSet<String> names = new TreeSet<>();
    run.samples().forEach(s -> names.addAll(s.limiters().keySet()));
    for (String name : names) {
      List<Double> t = new ArrayList<>();
      List<Double> inFlight = new ArrayList<>();
      List<Double> queued = new ArrayList<>();
      for (ServerSample s : run.samples()) {
        ServerSample.LimiterLoad load = s.limiters().get(name);
        if (load != null) {
          t.add(s.second());
          inFlight.add((double) load.inFlight());
          queued.add((double) load.queued());
        }
      }
      line(chart, name + " in flight", t, inFlight);
      line(chart, name + " queued", t, queued);
    }
    if (names.isEmpty()) {
      chart.setTitle("In flight and queued: no limiter (Sluice off)");
      line(chart, "none", List.of(0.0), List.of(0.0));
    }
    return svg(chart);
  }

  static String statuses(RunSummary run) {
    XYChart chart = xy("Responses per second by status (every try)", "responses/s");
    for (Map.Entry<String, long[]> status : run.attemptsPerSecond().entrySet()) {
      int n = status.getValue().length;
      List<Double> t = IntStream.range(0, n).mapToObj(i -> (double) i).toList();
      line(chart, status.getKey(), t, values(status.getValue(), n));
    }
    if (run.attemptsPerSecond().isEmpty()) {
      line(chart, "none", List.of(0.0), List.of(0.0));
    }
    return svg(chart);
  }

  /**
   * Percentiles of successful requests per endpoint, from the intended send time, on a log scale:
   * history's milliseconds would be invisible beside transcode's seconds on a linear one.
   */
  static String latency(RunSummary run) {
    return latency(run.latencyMillis());
  }

  static String latency(Map<String, Percentiles> latencyMillis) {
    return svg(latencyChart(latencyMillis));
  }

  static CategoryChart latencyChart(Map<String, Percentiles> latencyMillis) {
    CategoryChart chart = new CategoryChartBuilder()
        .width(WIDTH)
        .height(HEIGHT)
        .title("Latency of 200 answers from intended send (ms)")
        .xAxisTitle("percentile")
        .yAxisTitle("ms (log scale)")
        .build();
    style(chart.getStyler());
    chart.getStyler().setYAxisLogarithmic(true);
    // lines, not bars: a bar starts at 0, which a log axis does not have
    chart
        .getStyler()
        .setDefaultSeriesRenderStyle(
            org.knowm.xchart.CategorySeries.CategorySeriesRenderStyle.Line);
    List<String> labels = List.of("p50", "p90", "p99", "p99.9", "max");
    boolean any = false;
    for (Map.Entry<String, Percentiles> e : latencyMillis.entrySet()) {
      if (!e.getKey().endsWith(" 200")) {
        continue;
      }
      Percentiles p = e.getValue();
      chart.addSeries(
          e.getKey().replace(" 200", ""),
          labels,
          List.of(floor(p.p50()), floor(p.p90()), floor(p.p99()), floor(p.p999()), floor(p.max())));
      any = true;
    }
    if (!any) {
      chart.addSeries("none", labels, List.of(MIN_MS, MIN_MS, MIN_MS, MIN_MS, MIN_MS));
    }
    return chart;
  }

  /** A log axis has no 0: sub-0.01 ms latencies (none in practice) show at its floor. */
  private static final double MIN_MS = 0.01;

  private static double floor(double ms) {
    return Math.max(MIN_MS, ms);
  }

  public static XYChart xy(String title, String yTitle) {
    return xy(title, yTitle, WIDTH, HEIGHT);
  }

  /** A line chart over seconds, drawn {@code width} by {@code height} before it is scaled. */
  public static XYChart xy(String title, String yTitle, int width, int height) {
    XYChart chart = new XYChartBuilder()
        .width(width)
        .height(height)
        .title(title)
        .xAxisTitle("seconds")
        .yAxisTitle(yTitle)
        .build();
    style(chart.getStyler());
    chart.getStyler().setMarkerSize(0);
    return chart;
  }

  public static void style(org.knowm.xchart.style.Styler styler) {
    styler.setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
    styler.setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Horizontal);
    styler.setChartBackgroundColor(Color.WHITE);
    styler.setPlotBorderVisible(false);
    styler.setChartTitleVisible(false); // the HTML caption above says it
    if (styler instanceof org.knowm.xchart.style.AxesChartStyler axes) {
      // tick labels rounded: a step of 0.1 otherwise prints as 0.30000000000000004
      axes.setXAxisDecimalPattern(TICKS);
      axes.setYAxisDecimalPattern(TICKS);
    }
  }

  /** At most two decimals, thousands grouped. */
  static final String TICKS = "#,##0.##";

  public static XYSeries line(XYChart chart, String name, List<Double> x, List<Double> y) {
    XYSeries series = chart.addSeries(name, x, y);
    series.setMarker(SeriesMarkers.NONE);
    return series;
  }

  /** A line through {@code (x, y)} points. */
  public static XYSeries line(XYChart chart, String name, List<double[]> points) {
    return line(
        chart,
        name,
        points.stream().map(p -> p[0]).toList(),
        points.stream().map(p -> p[1]).toList());
  }

  /** The first {@code n} counts as a series, 0 past the end of {@code counts}. */
  public static List<Double> values(long[] counts, int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> i < counts.length ? (double) counts[i] : 0)
        .toList();
  }

  public static String svg(Chart<?, ?> chart) {
    return responsive(svgUnscaled(chart));
  }

  /** The chart's SVG at its own width and height, without the XML prolog. */
  public static String svgUnscaled(Chart<?, ?> chart) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      VectorGraphicsEncoder.saveVectorGraphic(
          chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String svg = out.toString(StandardCharsets.UTF_8);
    // inlined into HTML: the XML prolog and doctype are not allowed there
    int start = svg.indexOf("<svg");
    return start < 0 ? svg : svg.substring(start);
  }

  /**
   * As wide as the page: the drawing keeps its coordinates in a viewBox and the element takes the
   * width of its column (the report's CSS), its height following.
   */
  static String responsive(String svg) {
    int end = svg.indexOf('>');
    if (!svg.startsWith("<svg") || end < 0) {
      return svg;
    }
    String tag = svg.substring(0, end);
    if (!tag.contains("viewBox")) {
      tag += " viewBox=\"0 0 " + WIDTH + " " + HEIGHT + "\"";
    }
    tag = tag.replaceFirst(" width=\"[^\"]*\"", " width=\"100%\"")
        .replaceFirst(" height=\"[^\"]*\"", "");
    return tag + svg.substring(end);
  }
}
