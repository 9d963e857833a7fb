package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.http.Deadline;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A request's own deadline ({@code deadline-header}), read over HTTP in virtual time. */
class DeadlineTest {

  @ParameterizedTest
  @CsvSource({
    "250, 250000000",
    "0, 0",
    "2S, 2000000000",
    "250m, 250000000",
    "100u, 100000",
    "5n, 5",
    "1H, 3600000000000",
    "3M, 180000000000",
    "' 40 ', 40000000",
    "abc, -1",
    "'', -1",
    "-5, -1",
    "12x, -1",
    "123456789S, -1",
    "1.5, -1",
    "m, -1"
  })
  void bothFormsAreReadAndAnythingElseIsMalformed(String raw, long nanos) {
    assertThat(Deadline.parseNanos(raw)).isEqualTo(nanos);
  }

  @ParameterizedTest
  @CsvSource({
    "12345678S, 12345678000000000",
    "9223372036854, 9223372036854000000",
    "9223372036855, 9223372036854775807",
    "99999999H, 9223372036854775807",
    "1234567890123456789, 9223372036854775807",
    "12345678901234567890, -1"
  })
  void theLongestBudgetsAreReadAndOneTooLargeForTheClockIsForever(String raw, long nanos) {
    assertThat(Deadline.parseNanos(raw)).isEqualTo(nanos);
  }

  private final VirtualTime time = new VirtualTime();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AtomicReference<Duration> budgetSeen = new AtomicReference<>();
  private final CompletableFuture<String> gate = new CompletableFuture<>();

  private TestServer start() {
    Map<String, String> props = Map.of(
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.max-concurrency", "1",
        "sluice.limiters.work.queue-timeout", "10s",
        "sluice.limiters.work.deadline-header", "X-Deadline-Ms");
    return TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time)
            .meterRegistry(registry),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          budgetSeen.set(plugin.remainingBudget(ctx).orElse(null));
          if ("hold".equals(ctx.queryParam("mode"))) {
            ctx.future(() -> gate);
          } else {
            ctx.result("done");
          }
        }));
  }

  @Test
  void aQueuedRequestWaitsNoLongerThanItsOwnDeadline() {
    try (TestServer server = start()) {
      CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work?mode=hold");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      CompletableFuture<HttpResponse<String>> waiting =
          server.getAsync("/api/work", "X-Deadline-Ms", "300");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);

      time.advance(Duration.ofMillis(400)); // its 300 ms, far under the 10 s queue timeout

      assertThat(waiting.join().statusCode()).isEqualTo(504);
      gate.complete("done");
      assertThat(running.join().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aSpentDeadlineIsAnsweredAtOnce() {
    try (TestServer server = start()) {
      HttpResponse<String> r = server.get("/api/work", "X-Deadline-Ms", "0");

      assertThat(r.statusCode()).isEqualTo(504);
      assertThat(r.body()).contains("deadline_exceeded");
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().admitted())
          .isZero();
    }
  }

  @Test
  void theHandlerSeesWhatIsLeftOfTheBudgetAfterQueueing() {
    try (TestServer server = start()) {
      CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work?mode=hold");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      CompletableFuture<HttpResponse<String>> waiting =
          server.getAsync("/api/work", "X-Deadline-Ms", "2S");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);
      time.advance(Duration.ofMillis(500));
      gate.complete("done");

      assertThat(waiting.join().statusCode()).isEqualTo(200);
      assertThat(budgetSeen.get()).isEqualTo(Duration.ofMillis(1500));
      assertThat(running.join().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aMalformedDeadlineIsIgnoredAndCountedNeverA500() {
    try (TestServer server = start()) {
      HttpResponse<String> r = server.get("/api/work", "X-Deadline-Ms", "soon");

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(budgetSeen.get()).isNull();
      assertThat(registry
              .get("sluice.http.deadline.malformed")
              .tag("limiter", "work")
              .counter()
              .count())
          .isEqualTo(1);
    }
  }

  @Test
  void aDeadlineTooLargeForALongIsAVeryLongBudgetNeverA500() {
    // found by RequestHeadersFuzzTest: 19 digits passed the length check and overflowed parseLong
    assertThat(Deadline.parseNanos("9999999999999999999")).isEqualTo(Long.MAX_VALUE);
    try (TestServer server = start()) {
      HttpResponse<String> r = server.get("/api/work", "X-Deadline-Ms", "9999999999999999999");

      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(budgetSeen.get()).isNotNull();
    }
  }
}
