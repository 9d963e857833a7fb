package dev.sluice.loadtest.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.sluice.loadtest.LoadTest;
import dev.sluice.loadtest.Options;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The greedy-host run end to end against a scripted service on a free port (no child JVM): the
 * service turns the greedy host away and serves everyone else, so the figures are known.
 */
@Tag("integration")
class VariantComparisonTest {

  @TempDir
  Path out;

  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/", VariantComparisonTest::answer);
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void greedyHostAgainstATargetWritesItsFiguresAndChart() throws Exception {
    Options options = Options.parse(
        "--target",
        "http://127.0.0.1:" + server.getAddress().getPort(),
        "--scenario",
        "greedy-host",
        "--duration",
        "2s",
        "--rate",
        "60",
        "--cpu-millis",
        "10",
        "--drain",
        "3s",
        "--max-attempts",
        "1",
        "--out",
        out.toString());

    LoadTest.run(options);

    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertThat(summary.get("runs")).hasSize(1);
    JsonNode figures = summary.get("greedyHost").get(0);
    assertThat(figures.get("variant").asText()).isEqualTo("target");
    assertThat(figures.get("hosts")).hasSize(32);
    JsonNode greedy = figures.get("hosts").get(GreedyHostTraffic.GREEDY_HOST);
    assertThat(greedy.get("greedy").asBoolean()).isTrue();
    assertThat(greedy.get("served").asLong()).isZero();
    assertThat(greedy.get("tries429").asLong())
        .isEqualTo(greedy.get("requests").asLong())
        .isPositive();
    assertThat(figures.get("greedy429Requests").asLong())
        .isEqualTo(greedy.get("requests").asLong());
    assertThat(figures.get("rescue").get("notServedTries").asLong()).isZero();
    assertThat(figures.get("politeQueueWaitMillis").get("p50").asDouble())
        .isCloseTo(7.0, within(0.01));
    // the greedy host got nothing: its x is 0 among 32, so the index is at most 31/32
    assertThat(figures.get("jainIndex").asDouble()).isLessThanOrEqualTo(31.0 / 32 + 1e-9);
    String html = Files.readString(out.resolve("report.html"));
    assertThat(html)
        .contains("Greedy host: fairness")
        .contains("Jain&#39;s index") // the escaper writes every ' as an entity
        .contains("host 01 is the greedy one");
  }

  private static void answer(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getPath();
    String host = exchange.getRequestHeaders().getFirst("X-Host-Id");
    int status = 200;
    String body = "{}";
    if (path.equals("/metrics")) {
      body = "system_cpu_count 2.0\nprocess_cpu_usage 0.1\nsystem_cpu_usage 0.2\n";
    } else if (path.equals("/api/transcode")) {
      if (GreedyHostTraffic.GREEDY_HOST.equals(host)) {
        status = 429;
        body = "{\"title\":\"Queue full\",\"status\":429}";
      } else {
        body = "{\"jobId\":\"t\",\"queuedMillis\":7.0,\"serviceMillis\":10.0}";
      }
    }
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    exchange.getResponseBody().write(bytes);
    exchange.close();
  }
}
