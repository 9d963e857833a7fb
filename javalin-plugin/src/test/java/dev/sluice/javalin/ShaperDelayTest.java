package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.rate.Algorithm;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A leaky-bucket shaper rule holds a request for its turn (nginx limit_req without nodelay). */
class ShaperDelayTest {

  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger served = new AtomicInteger();
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** One request a second, a bucket of three: the first goes at once, two wait, a fourth is refused. */
  private void start(boolean withLimiter) {
    Rule shaper = Rule.builder()
        .id("shaped")
        .resource("/api/shaped")
        .actor("all")
        .limit(1, Duration.ofSeconds(1))
        .burst(3)
        .algorithm(Algorithm.LEAKY_BUCKET_SHAPER)
        .build();
    server = TestServer.start(
        cfg -> {
          cfg.properties(
                  SluiceProperties.builder().env(Map.of()).system(Map.of()).build())
              .clock(time)
              .scheduler(time)
              .rules(RuleSet.of(List.of(shaper)));
          if (withLimiter) {
            cfg.limiter("work", l -> l.path("/api/shaped").maxConcurrency(5).maxQueue(5));
          }
        },
        (app, plugin) ->
            app.routes.get("/api/shaped", ctx -> ctx.result("n" + served.incrementAndGet())));
  }

  @Test
  void requestsWithinTheBurstAreHeldForTheirTurnAndTheOverflowIsRejected() {
    start(false);
    assertThat(server.get("/api/shaped").statusCode())
        .as("an empty bucket: no delay")
        .isEqualTo(200);
    CompletableFuture<HttpResponse<String>> second = server.getAsync("/api/shaped");
    await().until(() -> time.pendingTasks() == 1);
    CompletableFuture<HttpResponse<String>> third = server.getAsync("/api/shaped");
    await().until(() -> time.pendingTasks() == 2);
    assertThat(time.pendingDelaysNanos()).containsExactlyInAnyOrder(1_000_000_000L, 2_000_000_000L);

    HttpResponse<String> overflow = server.get("/api/shaped");
    assertThat(overflow.statusCode()).isEqualTo(429);
    assertThat(overflow.body()).contains("\"rule\":\"shaped\"");
    assertThat(served).as("held requests have not run").hasValue(1);

    time.advance(Duration.ofSeconds(1));
    assertThat(second.join().statusCode()).isEqualTo(200);
    assertThat(third).isNotDone();
    time.advance(Duration.ofSeconds(1));
    assertThat(third.join().statusCode()).isEqualTo(200);
    assertThat(served).hasValue(3);
  }

  @Test
  void aHeldRequestTakesItsLimitersPermitOnlyWhenItsTurnComes() {
    start(true);
    assertThat(server.get("/api/shaped").statusCode()).isEqualTo(200);
    CompletableFuture<HttpResponse<String>> held = server.getAsync("/api/shaped");
    await().until(() -> time.pendingTasks() == 1);
    assertThat(server.plugin.limiter("work").orElseThrow().snapshot().inFlight())
        .isZero();

    time.advance(Duration.ofSeconds(1));

    assertThat(held.join().statusCode()).isEqualTo(200);
    assertThat(held.join().body()).isEqualTo("n2");
    await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 0);
    assertThat(server.plugin.limiter("work").orElseThrow().snapshot().admitted())
        .isEqualTo(2);
  }
}
