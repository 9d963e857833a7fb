package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.NanoClock;
import dev.sluice.time.VirtualTime;
import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link SluicePlugin#discardBody}: a body up to the configured size is read to its end (true), a
 * larger one, one the client waits to send (100-continue) or one that takes longer than the
 * configured time is left unread (false). Real Jetty requests; time is virtual.
 */
class DiscardBodyTest {

  private final VirtualTime time = new VirtualTime();
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private void start(String maxBytes, String maxTime) {
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.rejections.discard-body", maxBytes,
            "sluice.rejections.discard-time", maxTime))
        .build();
    server = TestServer.start(cfg -> cfg.properties(props).clock(time), (app, plugin) -> {
      app.routes.post("/upload", ctx -> ctx.result(String.valueOf(plugin.discardBody(ctx))));
      app.routes.get("/upload", ctx -> ctx.result(String.valueOf(plugin.discardBody(ctx))));
    });
  }

  private String post(HttpRequest.BodyPublisher body, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(server.base + "/upload"))
        .timeout(Duration.ofSeconds(20))
        .POST(body);
    if (headers.length > 0) {
      b.headers(headers);
    }
    HttpResponse<String> r =
        server.client.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()).join();
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.body();
  }

  private static HttpRequest.BodyPublisher chunked(int bytes) {
    // an input stream has no known length: the client sends it chunked
    return HttpRequest.BodyPublishers.ofInputStream(
        () -> new ByteArrayInputStream(new byte[bytes]));
  }

  @Test
  void aBodyUpToTheLimitIsReadToItsEndAndALargerOneIsLeft() {
    start("1000", "5s");
    assertThat(server.get("/upload").body()).isEqualTo("true");
    assertThat(post(HttpRequest.BodyPublishers.noBody())).isEqualTo("true");
    assertThat(post(HttpRequest.BodyPublishers.ofByteArray(new byte[1000]))).isEqualTo("true");
    assertThat(post(HttpRequest.BodyPublishers.ofByteArray(new byte[1001]))).isEqualTo("false");
    assertThat(post(chunked(1000))).isEqualTo("true");
    assertThat(post(chunked(1001))).isEqualTo("false");
    // larger than one read buffer (64 KiB), within the limit
    assertThat(post(chunked(200_000))).isEqualTo("false");
  }

  @Test
  void aBodyOfSeveralBuffersWithinTheLimitIsReadToItsEnd() {
    start("300000", "5s");
    assertThat(post(chunked(200_000))).isEqualTo("true");
    assertThat(post(HttpRequest.BodyPublishers.ofByteArray(new byte[200_000]))).isEqualTo("true");
  }

  @Test
  void noBytesToSpendLeavesEveryBodyUnread() {
    start("0", "5s");
    assertThat(post(HttpRequest.BodyPublishers.ofByteArray(new byte[10]))).isEqualTo("false");
    assertThat(server.get("/upload").body()).isEqualTo("true");
  }

  @Test
  void readingStopsWhenTheTimeIsSpent() {
    // each look at the clock is a second later: the deadline (2 s after the first look) allows
    // one read, not the second that would see the body's end
    AtomicLong now = new AtomicLong();
    NanoClock stepping = () -> now.addAndGet(1_000_000_000L);
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.rejections.discard-time", "2s"))
        .build();
    server = TestServer.start(cfg -> cfg.properties(props).clock(stepping), (app, plugin) -> {
      app.routes.post("/upload", ctx -> ctx.result(String.valueOf(plugin.discardBody(ctx))));
    });
    assertThat(post(HttpRequest.BodyPublishers.ofByteArray(new byte[10]))).isEqualTo("false");
  }
}
