package dev.sluice.loadtest.ingest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.report.HtmlRenderer;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class IngestScenarioTest {

  private static IngestClients run() {
    Map<String, IngestClients.Client> clients = new LinkedHashMap<>();
    clients.put(
        "naive",
        new IngestClients.Client(
            10_000,
            10_000,
            31_000,
            21_000,
            4.2,
            210.0,
            21_000,
            new long[] {9_000, 8_000, 7_000, 7_000},
            new long[] {7_000, 6_000, 4_000, 4_000}));
    clients.put(
        "paced",
        new IngestClients.Client(
            10_000,
            10_000,
            10_000,
            0,
            5.01,
            0.0,
            0,
            new long[] {2_000, 2_000, 2_000, 2_000, 2_000},
            new long[] {0, 0, 0, 0, 0}));
    return new IngestClients("http://127.0.0.1:1/api/ping", 2_000, 5.0, 1.5, clients);
  }

  @Test
  void ingestNeedsTheEmbeddedService() {
    assertThatThrownBy(
            () -> Options.parse("--target", "http://localhost:7070", "--scenario", "ingest"))
        .hasMessageContaining("--scenario ingest")
        .hasMessageContaining("--embedded");
    assertThat(Options.parse("--embedded", "--scenario", "ingest").experiment())
        .isInstanceOf(IngestRun.class);
  }

  @Test
  void summaryCarriesTheFieldsOfBothClients() throws Exception {
    ObjectMapper json = new ObjectMapper();
    JsonNode clients = json.readTree(
            json.writeValueAsString(Map.of("clients", run().clients())))
        .get("clients");

    for (String name : new String[] {"naive", "paced"}) {
      JsonNode client = clients.get(name);
      assertThat(client.get("records").asLong()).isEqualTo(10_000);
      assertThat(client.has("sends") && client.has("rejected") && client.has("seconds"))
          .isTrue();
    }
    assertThat(clients.get("naive").get("sends").asLong()).isEqualTo(31_000);
    assertThat(clients.get("paced").get("sendsPerSecond")).hasSize(5);
  }

  @Test
  void reportShowsTheTableAndAChartPerClient() {
    String html = HtmlRenderer.render(IngestReport.of(run()));

    assertThat(html)
        .contains("<th>naive</th><th>paced</th>", "<td>31000</td><td>10000</td>", "<td>5.01</td>");
    assertThat(html.split("<svg", -1)).hasSize(3);
    assertThat(html)
        .contains(
            "naive: sends and 429 answers per second", "paced: sends and 429 answers per second");
  }

  @Test
  void countsSplitSendsAndRejectionsBySecond() {
    IngestCounts counts = new IngestCounts();
    counts.sent();
    counts.answered(429);
    counts.sent();
    counts.answered(200);

    IngestClients.Client summary = counts.summary(1);
    assertThat(summary.sends()).isEqualTo(2);
    assertThat(summary.rejected()).isEqualTo(1);
    assertThat(summary.accepted()).isEqualTo(1);
    assertThat(summary.extraSendsPercent()).isEqualTo(100.0);
    assertThat(summary.sendsPerSecond()[0]).isEqualTo(2);
  }
}
