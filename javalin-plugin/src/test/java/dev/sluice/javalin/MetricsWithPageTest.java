package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The live page adds a listener beside the metrics binder: the metrics must be the same with the
 * page on as off (the pair once forwarded only the three-argument onRejected, and the binder,
 * which overrides the four-argument one, never heard of a rejection).
 */
class MetricsWithPageTest {

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void aQueueFullRejectionIsCountedWithOrWithoutThePage(boolean page) {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Map<String, String> props = new HashMap<>(Map.of(
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.max-concurrency", "1",
        "sluice.limiters.work.max-queue", "0"));
    if (page) {
      props.put("sluice.dashboard.path", "/sluice/dashboard");
    }
    CompletableFuture<String> gate = new CompletableFuture<>();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .meterRegistry(registry),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.future(() -> gate)))) {
      var running = server.getAsync("/api/work");
      try {
        await()
            .until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);

        assertThat(server.get("/api/work").statusCode()).isEqualTo(429);

        Counter rejected = registry
            .find("sluice.concurrency.requests")
            .tag("limiter", "work")
            .tag("outcome", "rejected")
            .tag("reason", "queue_full")
            .counter();
        assertThat(rejected).isNotNull();
        assertThat(rejected.count()).isEqualTo(1);
      } finally {
        gate.complete("done"); // a failed check must not leave the request to the drain timeout
      }
      assertThat(running.join().statusCode()).isEqualTo(200);
    }
  }
}
