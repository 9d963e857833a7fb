package dev.sluice.loadtest.ingest;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Charts;
import dev.sluice.loadtest.report.Report;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report of {@code --scenario ingest}: the headline ({@link IngestVerdict}), the table of both
 * clients, and their sends and 429s per second.
 */
final class IngestReport {

  private IngestReport() {}

  static Report of(IngestClients run) {
    IngestClients.Client first = run.clients().values().iterator().next();
    List<IngestClients.Client> clients = List.copyOf(run.clients().values());
    List<String> names = List.copyOf(run.clients().keySet());
    List<Block> charts = new ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      charts.add(new Block.Chart(
          names.get(i) + ": sends and 429 answers per second",
          chart(clients.get(i), run.limitPerSecond())));
    }
    return Report.titled("ingest")
        .summary("scenario", "ingest")
        .summary("verdicts", IngestVerdict.of(run))
        .summary("clients", run.clients())
        .summary("ingest", run)
        .add(new Block.Verdicts("Verdict", IngestVerdict.of(run)))
        .text(String.format(
            Locale.ROOT,
            "%,d records into %s, which takes %,d per second (a Sluice rate "
                + "rule): at best %.1f s. Naive: %d connections, every 429 sent again at once. Paced: Sluice's "
                + "PacedClient at the service's rate. Load average at the end: %.1f.",
            first.records(),
            run.service(),
            run.limitPerSecond(),
            run.idealSeconds(),
            IngestRun.NAIVE_CONNECTIONS,
            run.load()))
        .add(Block.Table.comparing(clients, c -> names.get(clients.indexOf(c)))
            .row("records", c -> Long.toString(c.records()))
            .row("accepted", c -> Long.toString(c.accepted()))
            .row("sends", c -> Long.toString(c.sends()))
            .row("rejected (429)", c -> Long.toString(c.rejected()))
            .row("extra sends, % of records", c -> f("%.1f", c.extraSendsPercent()))
            .row("seconds", c -> f("%.2f", c.seconds()))
            .row("seconds / ideal", c -> f("%.2f", c.seconds() / run.idealSeconds()))
            .build())
        .add(new Block.Grid(2, charts))
        .build();
  }

  private static String f(String format, double value) {
    return String.format(Locale.ROOT, format, value);
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
    return Charts.svgUnscaled(chart);
  }
}
