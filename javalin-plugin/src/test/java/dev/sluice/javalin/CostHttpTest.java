package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** {@code cost}: a request takes units of its limiter, declared by the client or learned. */
class CostHttpTest {

  private final VirtualTime time = new VirtualTime();
  private final CompletableFuture<String> gate = new CompletableFuture<>();
  private final AtomicBoolean hold = new AtomicBoolean(true);

  private TestServer start(String cost) {
    Map<String, String> props = Map.of(
        "sluice.limiters.work.path", "/api/work/*",
        "sluice.limiters.work.max-concurrency", "4",
        "sluice.limiters.work.queue-timeout", "10s",
        "sluice.limiters.work.cost", cost);
    return TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time),
        (app, plugin) -> app.routes.get("/api/work/{kind}", ctx -> {
          if (hold.get()) {
            ctx.future(() -> gate);
          } else {
            // learned costs: a slow job takes 400 ms, a fast one 100 ms, in virtual time
            time.advance(Duration.ofMillis(ctx.pathParam("kind").equals("slow") ? 400 : 100));
          }
        }));
  }

  private static int inFlight(TestServer server) {
    return server.plugin.limiter("work").orElseThrow().snapshot().inFlight();
  }

  @Test
  void aDeclaredCostTakesThatManyUnitsOfTheLimit() {
    try (TestServer server = start("header:X-Cost")) {
      CompletableFuture<HttpResponse<String>> big = server.getAsync("/api/work/a", "X-Cost", "3");
      await().until(() -> inFlight(server) == 3);
      CompletableFuture<HttpResponse<String>> two = server.getAsync("/api/work/b", "X-Cost", "2");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);

      gate.complete("done");

      assertThat(big.join().statusCode()).isEqualTo(200);
      assertThat(two.join().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aCostAboveTheLimitRunsAloneAndAMissingOneCostsOne() {
    try (TestServer server = start("query:cost")) {
      CompletableFuture<HttpResponse<String>> huge = server.getAsync("/api/work/a?cost=50");
      await().until(() -> inFlight(server) == 4); // the whole limit, not 50
      CompletableFuture<HttpResponse<String>> plain = server.getAsync("/api/work/b");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);

      gate.complete("done");

      assertThat(huge.join().statusCode()).isEqualTo(200);
      assertThat(plain.join().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aBadDeclaredCostIsA400NamingItNeverA500() {
    try (TestServer server = start("header:X-Cost")) {
      for (String bad : new String[] {"0", "-2", "lots", "99999999999999"}) {
        HttpResponse<String> r = server.get("/api/work/a", "X-Cost", bad);

        assertThat(r.statusCode()).as(bad).isEqualTo(400);
        assertThat(r.headers().firstValue("Content-Type"))
            .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(r.body()).contains("X-Cost").contains("bad_request");
      }
      assertThat(inFlight(server)).isZero();
    }
  }

  @Test
  void aLearnedCostFollowsTheServiceTimeOfTheRequestsPath() {
    try (TestServer server = start("learned")) {
      hold.set(false);
      for (int i = 0; i < 30; i++) { // slow 400 ms, fast 100 ms: typical about 250 ms
        assertThat(server.get("/api/work/" + (i % 2 == 0 ? "slow" : "fast")).statusCode())
            .isEqualTo(200);
      }
      hold.set(true);
      // a slow one costs 2 of the 4 units: two slow ones fill the limit, a third waits
      CompletableFuture<HttpResponse<String>> s1 = server.getAsync("/api/work/slow");
      CompletableFuture<HttpResponse<String>> s2 = server.getAsync("/api/work/slow");
      await().until(() -> inFlight(server) == 4);
      CompletableFuture<HttpResponse<String>> fast = server.getAsync("/api/work/fast");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);

      gate.complete("done");

      assertThat(s1.join().statusCode()).isEqualTo(200);
      assertThat(s2.join().statusCode()).isEqualTo(200);
      assertThat(fast.join().statusCode()).isEqualTo(200);
    }
  }
}
