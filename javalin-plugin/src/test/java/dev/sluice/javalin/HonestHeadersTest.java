package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.SluiceSettings;
import dev.sluice.http.Answers;
import dev.sluice.http.Rejection;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Headers that tell the client what is true. */
class HonestHeadersTest {

  private final VirtualTime time = new VirtualTime();
  private final Semaphore finish = new Semaphore(0);
  private TestServer server;

  @AfterEach
  void stop() {
    finish.release(100);
    if (server != null) {
      server.close();
    }
  }

  /** A limiter of one permit and two waiting slots, behind a generous per-IP token bucket. */
  private void start(Rule rule) {
    server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(Map.of()).build())
            .clock(time)
            .scheduler(time)
            .rules(RuleSet.of(List.of(rule)))
            .limiter(
                "work",
                l -> l.path("/api/work")
                    .maxConcurrency(1)
                    .maxQueue(2)
                    .queueTimeout(Duration.ofSeconds(60))),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          finish.tryAcquire(20, TimeUnit.SECONDS);
          ctx.result("done");
        }));
  }

  private static Rule perIp(long limit, long burst) {
    return Rule.builder()
        .id("per-ip")
        .resource("/api/**")
        .actor("ip")
        .limit(limit, Duration.ofSeconds(1))
        .burst(burst)
        .build();
  }

  private ConcurrencySnapshot work() {
    return server.plugin.limiter("work").orElseThrow().snapshot();
  }

  @Test
  void theAdvertisedQuotaIsTheBurstSoRemainingNeverExceedsIt() {
    start(perIp(10, 20));
    finish.release();

    HttpResponse<String> ok = server.get("/api/work");

    assertThat(ok.headers().firstValue("X-RateLimit-Limit")).hasValue("20");
    assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue("19");
    // 20 permits refilled at 10 a second: a window of 2 s
    assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"per-ip\";q=20;w=2");
    assertThat(ok.headers().firstValue("RateLimit").orElseThrow()).startsWith("\"per-ip\";r=19;");
  }

  @Test
  void queueFullRetryAfterCountsTheWorkAheadAndCarriesNoRateHeaders() {
    start(perIp(1_000, 1_000));
    // one job of 10 s (virtual) teaches the limiter its service time
    CompletableFuture<HttpResponse<String>> teacher = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    time.advance(Duration.ofSeconds(10));
    finish.release();
    assertThat(teacher.join().statusCode()).isEqualTo(200);
    await().until(() -> work().inFlight() == 0);

    CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> queued1 = server.getAsync("/api/work");
    CompletableFuture<HttpResponse<String>> queued2 = server.getAsync("/api/work");
    await().until(() -> work().queued() == 2);

    HttpResponse<String> full = server.get("/api/work");

    assertThat(full.statusCode()).isEqualTo(429);
    // two queued ahead plus this one, 10 s each, one permit: 30 s
    assertThat(full.headers().firstValue("Retry-After")).hasValue("30");
    assertThat(full.body()).contains("\"reason\":\"queue_full\"", "\"retryAfterSeconds\":30");
    assertThat(full.headers().map().keySet())
        .noneMatch(h -> h.toLowerCase(Locale.ROOT).contains("ratelimit"));
    finish.release(3);
    assertThat(running.join().statusCode()).isEqualTo(200);
    assertThat(queued1.join().statusCode()).isEqualTo(200);
    assertThat(queued2.join().statusCode()).isEqualTo(200);
  }

  @Test
  void queueTimeout504CarriesRetryAfterAndNoRateHeaders() {
    start(perIp(1_000, 1_000));
    CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> waiting = server.getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    time.advance(Duration.ofSeconds(60));

    HttpResponse<String> timedOut = waiting.join();
    assertThat(timedOut.statusCode()).isEqualTo(504);
    assertThat(timedOut.headers().firstValue("Retry-After").map(Long::parseLong))
        .hasValueSatisfying(s -> assertThat(s).isPositive());
    assertThat(timedOut.body()).contains("\"reason\":\"queue_timeout\"");
    assertThat(timedOut.headers().map().keySet())
        .noneMatch(h -> h.toLowerCase(Locale.ROOT).contains("ratelimit"));
    finish.release();
    assertThat(running.join().statusCode()).isEqualTo(200);
  }

  @Test
  void finerLimiterReasonsAreQueueFullAnswersNamingTheirReason() {
    Answers answers = new Answers(new SluiceSettings.Statuses(429, 504, 429, 503));
    for (RejectionReason reason : List.of(
        RejectionReason.KEY_CAP, RejectionReason.DISPLACED, RejectionReason.PREDICTED_WAIT)) {
      Rejection r = answers.fromLimiter(
          new ConcurrencyRejectedException(Outcome.QUEUE_FULL, reason, "work", 2_500_000_000L));
      String id = reason.name().toLowerCase(Locale.ROOT);
      assertThat(r.status).isEqualTo(429);
      assertThat(r.reason).isEqualTo(Rejection.Reason.QUEUE_FULL);
      assertThat(r.why).isEqualTo(id);
      assertThat(r.retryAfterSeconds).isEqualTo(3);
      assertThat(r.extensions).containsEntry("reason", id).containsEntry("limiter", "work");
    }
    Rejection timeout = answers.fromLimiter(
        new ConcurrencyRejectedException(Outcome.QUEUE_TIMEOUT, "work", 1_000_000_000L));
    assertThat(timeout.status).isEqualTo(504);
    assertThat(timeout.why).isEqualTo("queue_timeout");
    Rejection shutdown =
        answers.fromLimiter(new ConcurrencyRejectedException(Outcome.SHUTDOWN, "work", 0));
    assertThat(shutdown.status).isEqualTo(503);
    assertThat(shutdown.why).isEqualTo("shutting_down");
  }
}
