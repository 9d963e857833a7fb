package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** {@code queue-delay-target} over HTTP: a standing queue's old waiters get a 429 at once. */
class StandingQueueHttpTest {

  @Test
  void oldWaitersOfAStandingQueueAre429StandingQueueAndCountedLate() {
    VirtualTime time = new VirtualTime();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CompletableFuture<String> gate = new CompletableFuture<>();
    Map<String, String> props = Map.of(
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.max-concurrency", "1",
        "sluice.limiters.work.queue-timeout", "10s",
        "sluice.limiters.work.queue-delay-target", "20ms");
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time)
            .meterRegistry(registry),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.future(() -> gate)))) {
      CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
      for (int i = 0; i < 15; i++) { // a request every 10 ms: the queue never drains
        time.advance(Duration.ofMillis(10));
        waiting.add(server.getAsync("/api/work"));
        int n = i + 1;
        await().until(() -> {
          var s = server.plugin.limiter("work").orElseThrow().snapshot();
          return s.queued() + s.rejectedQueueFull() == n;
        });
      }

      HttpResponse<String> oldest = waiting.get(0).join();
      assertThat(oldest.statusCode()).isEqualTo(429);
      assertThat(oldest.body()).contains("standing_queue");
      assertThat(oldest.headers().firstValue("Retry-After")).isPresent();
      long shed = server.plugin.limiter("work").orElseThrow().snapshot().rejectedLate();
      assertThat(shed).isGreaterThan(5);
      assertThat(registry
              .get("sluice.concurrency.rejected.late")
              .tag("limiter", "work")
              .tag("reason", "standing_queue")
              .counter()
              .count())
          .isEqualTo((double) shed);
      assertThat(server.plugin.statusJson())
          .contains("\"late\":" + shed)
          .contains("\"queueDelayTarget\":\"PT0.02S\"");
      gate.complete("done");
      assertThat(running.join().statusCode()).isEqualTo(200);
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().rejectedQueueTimeout())
          .isZero();
    }
  }
}
