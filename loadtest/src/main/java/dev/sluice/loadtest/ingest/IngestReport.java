package dev.sluice.loadtest.ingest;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Charts;
import dev.sluice.loadtest.report.Report;
import java.awt.Color;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.knowm.xchart.XYChart;

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
        .text(f(
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

  /** Sends, 429s and the service's limit, per second of the client's run. */
  static String chart(IngestClients.Client client, long limit) {
    XYChart chart = Charts.xy("sends and 429 answers per second", "requests / s");
    chart.setXAxisTitle("seconds since the client's first send");
    long[] sends = client.sendsPerSecond().length == 0 ? new long[1] : client.sendsPerSecond();
    List<Double> t = IntStream.range(0, sends.length).mapToObj(s -> s + 0.5).toList();
    Charts.line(chart, "sends", t, Charts.values(sends, sends.length));
    Charts.line(chart, "429 answers", t, Charts.values(client.rejectedPerSecond(), sends.length))
        .setLineColor(Color.RED);
    Charts.line(
            chart,
            "service limit",
            List.of(0.0, sends.length + 0.0),
            List.of((double) limit, (double) limit))
        .setLineColor(Color.GRAY);
    return Charts.svgUnscaled(chart);
  }
}
