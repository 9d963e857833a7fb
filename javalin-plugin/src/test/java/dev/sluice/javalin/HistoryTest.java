package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.CpuSignals;
import dev.sluice.config.SluiceProperties;
import dev.sluice.http.History;
import dev.sluice.http.JsonWriter;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The live page's past, kept by the plugin: a ring of points at the page's resolution, sampled on
 * the plugin's scheduler (virtual time here), bounded, oldest first, written into the status.
 */
class HistoryTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final VirtualTime time = new VirtualTime();

  /** A signal busy at a fixed share, integrated over virtual time. */
  private CpuSignal busy(double share) {
    long origin = time.nanoTime();
    return () -> {
      long elapsed = time.nanoTime() - origin;
      return new CpuSignal.Reading(share * elapsed, elapsed);
    };
  }

  private JsonNode written(History history) throws Exception {
    JsonWriter w = new JsonWriter().beginObject();
    history.write(w, 1_000_000_000L);
    return JSON.readTree(w.endObject().toString()).get("history");
  }

  @Test
  void keepsTheLastPointsAtItsResolutionOldestFirstAndNoMore() throws Exception {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("work")
        .spec(LimiterSpec.custom().maxConcurrency(3).maxQueue(0).build())
        .clock(time)
        .scheduler(time)
        .build();
    History history = new History(
        List.of(limiter), new CpuSignals(busy(0.8), busy(0.25)), time, Duration.ofSeconds(1), 10);
    history.start(time);
    List<Permit> held = new ArrayList<>();
    for (int second = 1; second <= 25; second++) {
      if (second <= 3) {
        held.add(limiter.acquireIfFree()); // in flight 1, 2, 3 at the first three points
      } else if (second == 20) {
        // the limit is full and nobody may queue: refused
        assertThat(limiter.acquire()).isCompletedExceptionally();
      }
      time.advance(Duration.ofSeconds(1));
    }

    assertThat(history.size()).isEqualTo(10);
    JsonNode h = written(history);
    assertThat(h.get("resolutionMillis").asLong()).isEqualTo(1000);
    assertThat(h.get("windowMillis").asLong()).isEqualTo(10_000);
    List<Long> times = new ArrayList<>();
    h.get("time").forEach(t -> times.add(t.asLong()));
    assertThat(times).hasSize(10);
    // the last 10 of 25 points, one second apart, the newest at the status's own time
    assertThat(times.get(9)).isEqualTo(1_000_000_000L);
    for (int i = 1; i < times.size(); i++) {
      assertThat(times.get(i) - times.get(i - 1)).isEqualTo(1000);
    }
    JsonNode work = h.get("limiters").get("work");
    assertThat(work.get("inFlight")).allMatch(n -> n.asInt() == 3);
    assertThat(work.get("limit")).allMatch(n -> n.asInt() == 3);
    assertThat(work.get("queued")).allMatch(n -> n.asInt() == 0);
    // second 20's refusal lands in the point taken at the end of that second, the 5th of 10
    List<Integer> refused = new ArrayList<>();
    work.get("refused").forEach(n -> refused.add(n.asInt()));
    assertThat(refused).containsExactly(0, 0, 0, 0, 1, 0, 0, 0, 0, 0);
    assertThat(h.get("machineCpu")).allMatch(n -> Math.abs(n.asDouble() - 0.8) < 1e-3);
    assertThat(h.get("processCpu")).allMatch(n -> Math.abs(n.asDouble() - 0.25) < 1e-3);
    assertThat(history.machineCpu()).isEqualTo(0.8, org.assertj.core.data.Offset.offset(1e-3));
    assertThat(history.processCpu()).isEqualTo(0.25, org.assertj.core.data.Offset.offset(1e-3));

    history.close();
    time.advance(Duration.ofSeconds(5));
    assertThat(written(history).get("time").get(9).asLong())
        .as("closed: no new point")
        .isEqualTo(1_000_000_000L - 5000);
    held.forEach(Permit::release);
  }

  @Test
  void theStatusCarriesThePastTheCpuOfMachineAndProcessAndWhatIsDraining() throws Exception {
    CompletableFuture<String> gate = new CompletableFuture<>();
    Map<String, String> props = Map.of(
        "sluice.dashboard.path", "/sluice/dashboard",
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.max-concurrency", "2");
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time)
            .cpuSignals(busy(0.9), busy(0.1)), // a busy neighbour beside a quiet service
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.future(() -> gate)))) {
      List<CompletableFuture<HttpResponse<String>>> running =
          List.of(server.getAsync("/api/work"), server.getAsync("/api/work"));
      ConcurrencyLimiter limiter = server.plugin.limiter("work").orElseThrow();
      await().until(() -> limiter.snapshot().inFlight() == 2);
      time.advance(Duration.ofSeconds(90));
      // the limit drops below the requests running: they drain
      limiter.reconfigure(
          LimiterSpec.from(limiter.snapshot().spec()).maxConcurrency(1).build());
      time.advance(Duration.ofSeconds(1));

      JsonNode status = JSON.readTree(server.plugin.statusJson());
      JsonNode history = status.get("history");
      assertThat(history.get("time")).hasSize(91);
      JsonNode work = history.get("limiters").get("work");
      assertThat(work.get("inFlight")).hasSize(91).allMatch(n -> n.asInt() == 2);
      assertThat(work.get("limit").get(0).asInt()).isEqualTo(2);
      assertThat(work.get("limit").get(90).asInt()).isEqualTo(1);
      assertThat(status.get("cpu").get("machine").asDouble()).isEqualTo(0.9);
      assertThat(status.get("cpu").get("process").asDouble()).isEqualTo(0.1);
      JsonNode limiterStatus = status.get("limiters").get(0);
      assertThat(limiterStatus.get("inFlight").asInt()).isEqualTo(2);
      assertThat(limiterStatus.get("limit").asInt()).isEqualTo(1);
      assertThat(limiterStatus.get("draining").asInt()).isEqualTo(1);

      gate.complete("done");
      running.forEach(r -> assertThat(r.join().statusCode()).isEqualTo(200));
    }
  }

  @Test
  void withoutTheLivePageNothingIsSampledAndTheStatusSaysSo() throws Exception {
    Map<String, String> props = Map.of("sluice.limiters.work.path", "/api/work");
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("done")))) {
      assertThat(time.pendingTasks()).as("no sampling task").isZero();
      JsonNode status = JSON.readTree(server.plugin.statusJson());
      assertThat(status.get("history").isNull()).isTrue();
      assertThat(status.get("cpu").isNull()).isTrue();
    }
  }
}
