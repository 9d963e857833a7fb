package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A global limiter is the whole limiter: an adaptive limit and early rejection work as on a local
 * one, and a reload shows in {@code /sluice} as the configuration in force.
 */
class GlobalAdaptiveReloadTest {

  @TempDir
  Path dir;

  private static String props(String limit, int max, String cluster) {
    String p = "sluice.limiters.work.";
    return String.join(
        "\n",
        "sluice.redis.uri=memory://" + cluster,
        p + "path=/api/work",
        p + "scope=global",
        p + "limit=" + limit,
        p + "max-concurrency=" + max,
        p + "min-concurrency=" + max,
        p + "max-queue=8",
        p + "queue-timeout=2s",
        p + "reject-early=true",
        "");
  }

  @Test
  void aGlobalLimiterRejectsEarlyAndShowsTheReloadedStrategyAndLimit() throws Exception {
    VirtualTime time = new VirtualTime();
    Path file = dir.resolve("sluice.properties");
    Files.writeString(file, props("fixed", 2, "adaptive-reload"));
    AtomicInteger serviceMillis = new AtomicInteger(1000);
    CompletableFuture<String> gate = new CompletableFuture<>();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(SluiceProperties.builder()
                .file(file)
                .env(Map.of())
                .system(Map.of())
                .build())
            .clock(time)
            .scheduler(time),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          if (serviceMillis.get() > 0) {
            time.advance(Duration.ofMillis(serviceMillis.get()));
          } else {
            ctx.future(() -> gate);
          }
        }))) {
      for (int i = 0; i < 40; i++) { // 1 s a job, so a wait can be predicted
        assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      }
      serviceMillis.set(0);

      // reloaded: another strategy and a higher ceiling
      Files.writeString(file, props("cpu", 8, "adaptive-reload"));
      server.plugin.reload();
      String status = server.plugin.statusJson();
      assertThat(status).contains("\"limitKind\":\"cpu\"").contains("\"maxConcurrency\":8");
      assertThat(server
              .plugin
              .limiter("work")
              .orElseThrow()
              .snapshot()
              .limitState()
              .strategy())
          .isEqualTo("cpu");

      List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        all.add(server.getAsync("/api/work"));
      }
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 8);
      // 8 running at 1 s each: 16 may wait within 2 s; the queue holds 8: fill it
      for (int i = 0; i < 8; i++) {
        all.add(server.getAsync("/api/work"));
      }
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 8);
      assertThat(server.get("/api/work").statusCode()).isEqualTo(429);
      gate.complete("done");
      all.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(200));
    }
  }

  @Test
  void aGlobalLimiterAnswersAPredictedWaitAtOnceInsteadOfA504() throws Exception {
    VirtualTime time = new VirtualTime();
    Path file = dir.resolve("sluice.properties");
    Files.writeString(file, props("cpu", 1, "adaptive-early"));
    AtomicInteger serviceMillis = new AtomicInteger(1000);
    CompletableFuture<String> gate = new CompletableFuture<>();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(SluiceProperties.builder()
                .file(file)
                .env(Map.of())
                .system(Map.of())
                .build())
            .clock(time)
            .scheduler(time),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          if (serviceMillis.get() > 0) {
            time.advance(Duration.ofMillis(serviceMillis.get()));
          } else {
            ctx.future(() -> gate);
          }
        }))) {
      for (int i = 0; i < 40; i++) {
        assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      }
      serviceMillis.set(0);
      CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
      for (int i = 0; i < 2; i++) { // 1 and 2 s ahead: both can make their 2 s
        waiting.add(server.getAsync("/api/work"));
        int n = i + 1;
        await()
            .until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == n);
      }

      HttpResponse<String> third = server.get("/api/work"); // 3 s ahead: cannot

      assertThat(third.statusCode()).isEqualTo(429);
      assertThat(third.body()).contains("predicted_wait");
      assertThat(server
              .plugin
              .limiter("work")
              .orElseThrow()
              .snapshot()
              .limitState()
              .strategy())
          .isEqualTo("cpu");
      gate.complete("done");
      assertThat(running.join().statusCode()).isEqualTo(200);
      waiting.forEach(f -> assertThat(f.join().statusCode()).isEqualTo(200));
    }
  }
}
