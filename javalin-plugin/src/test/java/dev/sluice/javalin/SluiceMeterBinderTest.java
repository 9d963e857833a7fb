package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
class SluiceMeterBinderTest {

  @TempDir
  Path dir;

  /** What Micrometer's composite registry logs, for the test that expects nothing from it. */
  @RegisterExtension
  final LogCapture micrometer = new LogCapture(CompositeMeterRegistry.class);

  @Test
  void limiterAndRuleMetricsAreRecordedWithTheirTags() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    // the shadow rule first: evaluation stops at the first enforced rejection
    Files.writeString(rules, """
        rules:
          - id: light-shadow
            resource: /api/light
            actor: all
            limit: 1
            unit: minute
            shadow: true
          - id: light
            resource: /api/light
            actor: ip
            limit: 1
            unit: minute\
        """);
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.rules.file", rules.toString()))
        .build();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props)
            .meterRegistry(registry)
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(1)),
        (app, plugin) -> {
          app.routes.get("/api/work", ctx -> {
            release.await(10, TimeUnit.SECONDS);
            ctx.result("done");
          });
          app.routes.get("/api/light", ctx -> ctx.result("light"));
        })) {
      CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      CompletableFuture<HttpResponse<String>> second = server.getAsync("/api/work");
      await()
          .until(() -> registry
                  .get("sluice.concurrency.queued")
                  .tag("limiter", "work")
                  .gauge()
                  .value()
              == 1);
      assertThat(server.get("/api/work").statusCode()).isEqualTo(429);
      assertThat(registry
              .get("sluice.concurrency.limit")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isEqualTo(1);
      assertThat(registry
              .get("sluice.concurrency.in.flight")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isEqualTo(1);
      release.countDown();
      first.join();
      second.join();
      server.get("/api/light");
      server.get("/api/light");

      assertThat(count(registry, "sluice.concurrency.requests", "admitted", "immediate"))
          .isEqualTo(1);
      assertThat(count(registry, "sluice.concurrency.requests", "admitted", "queued"))
          .isEqualTo(1);
      assertThat(count(registry, "sluice.concurrency.requests", "rejected", "queue_full"))
          .isEqualTo(1);
      Timer wait = registry
          .get("sluice.concurrency.queue.wait")
          .tags("limiter", "work", "outcome", "admitted")
          .timer();
      assertThat(wait.count()).isEqualTo(1);
      assertThat(wait.max(TimeUnit.NANOSECONDS)).isPositive();
      await()
          .until(() -> registry
                  .get("sluice.concurrency.service.time")
                  .tag("limiter", "work")
                  .timer()
                  .count()
              == 2);
      assertThat(registry
              .get("sluice.rate.decisions")
              .tags("rule", "light", "outcome", "allowed")
              .functionCounter()
              .count())
          .isEqualTo(1);
      assertThat(registry
              .get("sluice.rate.decisions")
              .tags("rule", "light", "outcome", "rejected")
              .functionCounter()
              .count())
          .isEqualTo(1);
      assertThat(registry
              .get("sluice.rate.decisions")
              .tags("rule", "light-shadow", "outcome", "shadow-rejected")
              .functionCounter()
              .count())
          .isEqualTo(1);
      assertThat(registry
              .get("sluice.http.rejections")
              .tags("reason", "queue_full", "status", "429")
              .counter()
              .count())
          .isEqualTo(1);
      assertThat(registry
              .get("sluice.http.rejections")
              .tags("reason", "rate_limited", "status", "429")
              .counter()
              .count())
          .isEqualTo(1);
      assertThat(registry.get("sluice.rate.rules").gauge().value()).isEqualTo(2);
    }
  }

  @Test
  void timersPublishHistogramBucketsToPrometheusBoundBeforeOrAfterTheyExist() {
    PrometheusMeterRegistry early = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    PrometheusMeterRegistry late = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(Map.of()).build())
            .meterRegistry(early)
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(1)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(10, TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      CompletableFuture<HttpResponse<String>> second = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);
      release.countDown();
      assertThat(first.join().statusCode()).isEqualTo(200);
      assertThat(second.join().statusCode()).isEqualTo(200);
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 0);
      // Micrometer's composite semantics: a registry bound late sees only what happens after
      server.plugin.meterBinder().bindTo(late);
      assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 0);

      String scrape = early.scrape();
      assertThat(scrape)
          .containsPattern(
              "(?m)^sluice_concurrency_queue_wait_seconds_bucket\\{limiter=\"work\",outcome=\"admitted\",le=\"[0-9.]+\"} 1$");
      assertThat(scrape)
          .containsPattern(
              "(?m)^sluice_concurrency_service_time_seconds_bucket\\{limiter=\"work\",le=\"[0-9.]+\"} 3$");
      assertThat(scrape)
          .contains(
              "sluice_concurrency_queue_wait_seconds_count{limiter=\"work\",outcome=\"admitted\"} 1",
              "sluice_concurrency_service_time_seconds_count{limiter=\"work\"} 3",
              "# HELP sluice_concurrency_service_time_seconds time a permit was held");
      String lateScrape = late.scrape();
      assertThat(lateScrape)
          .containsPattern(
              "(?m)^sluice_concurrency_queue_wait_seconds_bucket\\{limiter=\"work\",outcome=\"admitted\",le=\"\\+Inf\"} 0$");
      assertThat(lateScrape)
          .containsPattern(
              "(?m)^sluice_concurrency_service_time_seconds_bucket\\{limiter=\"work\",le=\"\\+Inf\"} 1$");
    }
  }

  @Test
  void aRegistryGivenInTheConfigIsBoundBeforeAnyMeterSoMicrometerHasNothingToWarnAbout()
      throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, """
        rules:
          - id: light
            resource: /api/light
            actor: ip
            limit: 5
            unit: minute\
        """);
    // Micrometer warns once per JVM, then logs the same at DEBUG: catch both
    Level before = micrometer.logger().getLevel();
    micrometer.logger().setLevel(Level.DEBUG);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(SluiceProperties.builder()
                .env(Map.of())
                .system(Map.of("sluice.rules.file", rules.toString()))
                .build())
            .meterRegistry(registry)
            .limiter("work", l -> l.path("/api/work").maxConcurrency(2).maxQueue(1)),
        (app, plugin) -> {
          app.routes.get("/api/work", ctx -> ctx.result("done"));
          app.routes.get("/api/light", ctx -> ctx.result("light"));
        })) {
      assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      assertThat(registry
              .get("sluice.concurrency.limit")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isEqualTo(2);
      assertThat(registry.get("sluice.rate.rules").gauge().value()).isEqualTo(1);
    } finally {
      micrometer.logger().setLevel(before);
    }
    assertThat(micrometer.events())
        .extracting(ILoggingEvent::getFormattedMessage)
        .isEmpty();
  }

  private static double count(SimpleMeterRegistry r, String name, String outcome, String reason) {
    // admissions at once are a function counter (read from the limiter), the others plain counters
    io.micrometer.core.instrument.search.Search found =
        r.find(name).tags("limiter", "work", "outcome", outcome, "reason", reason);
    return found.counter() != null
        ? found.counter().count()
        : found.functionCounter().count();
  }
}
