package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice.rules.file} and {@code sluice.rules.remote-url} reloaded through the plugin, with
 * the polls driven by a virtual scheduler given to {@link SluiceConfig#scheduler}.
 */
@Tag("integration")
class RulesReloadTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();

  @RegisterExtension
  final LogCapture log = new LogCapture(SluicePlugin.class);

  private TestServer server;
  private HttpServer remote;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (remote != null) {
      remote.stop(0);
    }
  }

  private static String perIp(int limit) {
    return String.join(
        "\n",
        "rules:",
        "  - id: history-per-ip",
        "    resource: /api/history/*",
        "    actor: ip",
        "    limit: " + limit,
        "    unit: minute",
        "");
  }

  private Path start(String rules, Map<String, String> extra) throws IOException {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, rules);
    Map<String, String> system = new HashMap<>(extra);
    system.put("sluice.rules.file", file.toString());
    system.put("sluice.rules.reload-interval", "5s");
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(system).build();
    server = TestServer.start(
        cfg -> cfg.properties(props).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/history/{id}", ctx -> ctx.result("history")));
    return file;
  }

  /** Serves the rules on a JDK HttpServer on a random port; returns their URL. */
  private String serveRemote(String rules) throws IOException {
    remote = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    remote.createContext("/rules.yaml", exchange -> {
      byte[] body = rules.getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(200, body.length);
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(body);
      }
    });
    remote.start();
    return "http://127.0.0.1:" + remote.getAddress().getPort() + "/rules.yaml";
  }

  private String limitHeader() {
    HttpResponse<String> r = server.get("/api/history/1");
    return r.headers().firstValue("X-RateLimit-Limit").orElse("none");
  }

  @Test
  void rewrittenRulesFileIsAppliedWithoutRestartAndAnInvalidOneKeepsTheOldRules()
      throws IOException {
    Path file = start(perIp(2), Map.of());
    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(429);

    Files.writeString(file, perIp(30));
    time.advance(INTERVAL);

    HttpResponse<String> after = server.get("/api/history/1");
    assertThat(after.statusCode()).isEqualTo(200);
    assertThat(after.headers().firstValue("X-RateLimit-Limit")).hasValue("30");

    // line 5 holds the bad value
    Files.writeString(file, perIp(30).replace("limit: 30", "limit: lots") + "# now invalid\n");
    time.advance(INTERVAL);

    HttpResponse<String> still = server.get("/api/history/1");
    assertThat(still.statusCode()).isEqualTo(200);
    assertThat(still.headers().firstValue("X-RateLimit-Limit")).hasValue("30");
    assertThat(log.events()).anySatisfy(e -> {
      assertThat(e.getLevel()).isEqualTo(ch.qos.logback.classic.Level.WARN);
      assertThat(e.getFormattedMessage()).contains(file.toString() + ":5", "limit", "lots");
    });
  }

  @Test
  void remoteRulesWinWhileReachableAndTheLocalFileAppliesWhenItIsDown() throws IOException {
    String url = serveRemote(perIp(50));
    start(perIp(100), Map.of("sluice.rules.remote-url", url));

    assertThat(limitHeader()).isEqualTo("50");

    remote.stop(0);
    remote = null;
    time.advance(INTERVAL);

    await().until(() -> limitHeader().equals("100"));
    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(200);
  }

  @Test
  void remoteRulesAloneWithoutALocalFile() throws IOException {
    String url = serveRemote(perIp(1));
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.rules.remote-url", url))
        .build();
    server = TestServer.start(
        cfg -> cfg.properties(props).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/history/{id}", ctx -> ctx.result("history")));

    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(200);
    assertThat(server.get("/api/history/1").statusCode()).isEqualTo(429);
  }
}
