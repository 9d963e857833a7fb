package dev.sluice.loadtest.ingest;

import dev.sluice.loadtest.report.Verdict;
import java.awt.Color;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.VectorGraphicsEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The HTML page of {@code --scenario ingest}: the headline ({@link IngestVerdict}), the table of
 * both clients, and their sends and 429s per second. */
final class IngestReport {

  private IngestReport() {}

  static String render(IngestClients run) {
    StringBuilder html =
        new StringBuilder("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            + "<title>Sluice load test: ingest</title><style>body{font-family:system-ui,sans-serif;margin:24px;"
            + "color:#222}table{border-collapse:collapse;margin:8px 0 20px}td,th{border:1px solid #ccc;"
            + "padding:3px 8px;text-align:right}th:first-child,td:first-child{text-align:left}"
            + ".grid{display:grid;grid-template-columns:repeat(2,minmax(0,660px));gap:8px}"
            + ".grid svg{width:100%;height:auto}"
            + Verdict.CSS
            + "</style></head><body>\n");
    html.append("<h1>Sluice load test: ingest</h1>\n")
        .append(Verdict.html("Verdict", IngestVerdict.of(run)))
        .append("<p>")
        .append(String.format(
            Locale.ROOT,
            "%,d records into %s, which takes %,d per second (a Sluice rate "
                + "rule): at best %.1f s. Naive: %d connections, every 429 sent again at once. Paced: Sluice's "
                + "PacedClient at the service's rate. Load average at the end: %.1f.",
            first(run).records(),
            esc(run.service()),
            run.limitPerSecond(),
            run.idealSeconds(),
            IngestRun.NAIVE_CONNECTIONS,
            run.load()))
        .append("</p>\n<table><tr><th></th>");
    run.clients().keySet().forEach(name -> html.append("<th>").append(esc(name)).append("</th>"));
    html.append("</tr>\n");
    metric(html, run, "records", c -> Long.toString(c.records()));
    metric(html, run, "accepted", c -> Long.toString(c.accepted()));
    metric(html, run, "sends", c -> Long.toString(c.sends()));
    metric(html, run, "rejected (429)", c -> Long.toString(c.rejected()));
    metric(
        html,
        run,
        "extra sends, % of records",
        c -> String.format(Locale.ROOT, "%.1f", c.extraSendsPercent()));
    metric(html, run, "seconds", c -> String.format(Locale.ROOT, "%.2f", c.seconds()));
    metric(
        html,
        run,
        "seconds / ideal",
        c -> String.format(Locale.ROOT, "%.2f", c.seconds() / run.idealSeconds()));
    html.append("</table>\n<div class=\"grid\">\n");
    for (Map.Entry<String, IngestClients.Client> client : run.clients().entrySet()) {
      html.append("<div><h3>")
          .append(esc(client.getKey()))
          .append(": sends and 429 answers per second</h3>")
          .append(chart(client.getValue(), run.limitPerSecond()))
          .append("</div>\n");
    }
    return html.append("</div>\n</body></html>\n").toString();
  }

  private static IngestClients.Client first(IngestClients run) {
    return run.clients().values().iterator().next();
  }

  private static void metric(
      StringBuilder html,
      IngestClients run,
      String name,
      java.util.function.Function<IngestClients.Client, String> value) {
    html.append("<tr><td>").append(esc(name)).append("</td>");
    run.clients()
        .values()
        .forEach(c -> html.append("<td>").append(value.apply(c)).append("</td>"));
    html.append("</tr>\n");
  }

  /** Sends, 429s and the service's limit, per second of the client's run. */
  static String chart(IngestClients.Client client, long limit) {
    XYChart chart = new XYChartBuilder()
        .width(640)
        .height(300)
        .xAxisTitle("seconds since the client's first send")
        .yAxisTitle("requests / s")
        .build();
    chart.getStyler().setXAxisDecimalPattern("#,##0.##").setYAxisDecimalPattern("#,##0.##");
    chart
        .getStyler()
        .setChartBackgroundColor(Color.WHITE)
        .setPlotBorderVisible(false)
        .setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS)
        .setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Horizontal)
        .setMarkerSize(0);
    List<Double> t = new ArrayList<>();
    List<Double> sends = new ArrayList<>();
    List<Double> rejected = new ArrayList<>();
    for (int s = 0; s < client.sendsPerSecond().length; s++) {
      t.add(s + 0.5);
      sends.add((double) client.sendsPerSecond()[s]);
      rejected.add((double) client.rejectedPerSecond()[s]);
    }
    if (t.isEmpty()) {
      t.add(0.0);
      sends.add(0.0);
      rejected.add(0.0);
    }
    chart.addSeries("sends", t, sends).setMarker(SeriesMarkers.NONE);
    chart
        .addSeries("429 answers", t, rejected)
        .setMarker(SeriesMarkers.NONE)
        .setLineColor(Color.RED);
    chart
        .addSeries(
            "service limit",
            List.of(0.0, t.get(t.size() - 1) + 0.5),
            List.of((double) limit, (double) limit))
        .setMarker(SeriesMarkers.NONE)
        .setLineColor(Color.GRAY);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      VectorGraphicsEncoder.saveVectorGraphic(
          chart, out, VectorGraphicsEncoder.VectorGraphicsFormat.SVG);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    String svg = out.toString(StandardCharsets.UTF_8);
    return svg.substring(Math.max(0, svg.indexOf("<svg"))); // no XML prolog inside HTML
  }

  private static String esc(String s) {
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
