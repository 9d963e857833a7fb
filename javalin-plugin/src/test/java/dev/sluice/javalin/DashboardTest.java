package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.config.SluiceProperties;
import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesFile;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The live page and its data over HTTP (the page in a real browser: DashboardBrowserTest). */
@Tag("integration")
class DashboardTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  static RuleSet historyRule() throws Exception {
    return RulesFile.parse("test", """
        rules:
          - id: history
            resource: /api/history/*
            actor: account
            limit: 2
            unit: minute
          - id: history-shadow
            resource: /api/history/*
            limit: 1
            unit: minute
            shadow: true
        """);
  }

  private static SluiceProperties props(Map<String, String> values) {
    return SluiceProperties.builder().env(Map.of()).system(values).build();
  }

  @Test
  void offByDefault() {
    try (TestServer server =
        TestServer.start(cfg -> cfg.properties(props(Map.of())), (app, plugin) -> {})) {
      assertThat(server.get("/sluice/dashboard").statusCode()).isEqualTo(404);
    }
  }

  @Test
  void servesASelfContainedPageAndItsDataEvenWhileTheLimiterIsFull() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(Map.of("sluice.dashboard.path", "/sluice/dashboard")))
            .limiter("work", l -> l.path("/**").maxConcurrency(1).maxQueue(0)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(10, TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      var running = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      assertThat(server.get("/api/work").statusCode()).isEqualTo(429); // "/**" covers everything

      HttpResponse<String> page = server.get("/sluice/dashboard");
      assertThat(page.statusCode()).isEqualTo(200);
      assertThat(page.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/html");
      // no CDN, no external font or script: nothing is fetched from another host
      assertThat(page.body())
          .doesNotContain("http://", "https://", "<link", "src=", "@import")
          .contains("<script>", "<style>");

      HttpResponse<String> data = server.get("/sluice/dashboard/data");
      assertThat(data.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/json");
      JsonNode work = JSON.readTree(data.body()).get("limiters").get(0);
      assertThat(work.get("name").asText()).isEqualTo("work");
      assertThat(work.get("inFlight").asInt()).isEqualTo(1);
      assertThat(work.get("limit").asInt()).isEqualTo(1);
      assertThat(work.get("rejected").get("queueFull").asLong()).isEqualTo(1);
      assertThat(work.get("cpu").isNull()).isTrue();
      release.countDown();
      assertThat(running.join().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void perRuleCountsInTheDataAndInRuleSnapshots() throws Exception {
    RuleSet rules = historyRule();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(Map.of(
                "sluice.dashboard.path",
                "/live",
                "sluice.limiters.cpu.path",
                "/api/cpu",
                "sluice.limiters.cpu.limit",
                "cpu",
                "sluice.limiters.cpu.target-cpu",
                "60%")))
            .rules(rules),
        (app, plugin) -> {
          app.routes.get("/api/history/{id}", ctx -> ctx.result("h"));
          app.routes.get("/api/cpu", ctx -> ctx.result("cpu"));
        })) {
      for (int i = 0; i < 3; i++) {
        server.get("/api/history/1", "X-Account-Id", "alice");
      }
      assertThat(server.plugin.ruleSnapshots())
          .extracting(r ->
              r.rule().id() + "=" + r.allowed() + "/" + r.rejected() + "/" + r.shadowRejected())
          .containsExactly(
              "history=2/1/0", "history-shadow=1/0/1"); // the 3rd stops at its rejection

      JsonNode status = JSON.readTree(server.get("/live/data").body());
      JsonNode history = status.get("rules").get(0);
      assertThat(history.get("id").asText()).isEqualTo("history");
      assertThat(history.get("allowed").asLong()).isEqualTo(2);
      assertThat(history.get("rejected").asLong()).isEqualTo(1);
      assertThat(status.get("rules").get(1).get("shadowRejected").asLong()).isEqualTo(1);
      JsonNode cpu = status.get("limiters").get(0).get("cpu");
      assertThat(cpu.get("target").asDouble()).isEqualTo(0.6);
      assertThat(cpu.get("source").asText()).isEqualTo("machine");
      // no shared store without sluice.redis.uri
      assertThat(status.get("store").isNull()).isTrue();
      // the same document for an app without Jackson
      assertThat(JSON.readTree(server.plugin.statusJson()).get("rules")).hasSize(2);
    }
  }

  @Test
  void queueWaitP99AppearsOnceRequestsWaited() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(Map.of("sluice.dashboard.path", "/live")))
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(5)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(10, TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      assertThat(JSON.readTree(server.get("/live/data").body())
              .get("limiters")
              .get(0)
              .get("queueWaitP99Millis")
              .isNull())
          .isTrue();
      var first = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      var second = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);
      release.countDown();
      assertThat(first.join().statusCode()).isEqualTo(200);
      assertThat(second.join().statusCode()).isEqualTo(200);
      await()
          .atMost(Duration.ofSeconds(5))
          .until(() -> JSON.readTree(server.get("/live/data").body())
                  .get("limiters")
                  .get(0)
                  .get("queueWaitP99Millis")
                  .asDouble()
              > 0);
    }
  }

  @Test
  void theStatusShowsWhoWaitsByClassAndKeyAndWhereTheLimitComesFrom() throws Exception {
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(Map.of(
            "sluice.limiters.work.path",
            "/api/work",
            "sluice.limiters.work.max-concurrency",
            "1",
            "sluice.limiters.work.max-queue",
            "5",
            "sluice.limiters.work.queue",
            "fair",
            "sluice.limiters.work.queue-key",
            "header:X-Host",
            "sluice.limiters.work.priority-header",
            "X-Priority"))),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(10, TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      var running = server.getAsync("/api/work", "X-Host", "a");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      var critical = server.getAsync("/api/work", "X-Host", "b", "X-Priority", "critical");
      var normal = server.getAsync("/api/work", "X-Host", "c");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 2);

      JsonNode status = JSON.readTree(server.plugin.statusJson());
      assertThat(status.get("enabled").asBoolean()).isTrue();
      JsonNode work = status.get("limiters").get(0);
      JsonNode waiting = work.get("waiting");
      assertThat(waiting.get("critical").asInt()).isEqualTo(1);
      assertThat(waiting.get("normal").asInt()).isEqualTo(1);
      assertThat(waiting.get("sheddable").asInt()).isZero();
      assertThat(waiting.get("keys").asInt()).isEqualTo(2);
      assertThat(work.get("rejected").get("keyCap").asLong()).isZero();
      JsonNode source = work.get("limitSource");
      assertThat(source.get("strategy").asText()).isEqualTo("fixed");
      assertThat(source.get("exactLimit").asDouble()).isEqualTo(1);
      assertThat(source.get("maxLimit").asInt()).isEqualTo(1);
      assertThat(source.get("cpu").isNull()).as("not an input of a fixed limit").isTrue();
      assertThat(work.get("clusterLeases").isNull()).as("a local limiter").isTrue();

      release.countDown();
      assertThat(running.join().statusCode()).isEqualTo(200);
      assertThat(critical.join().statusCode()).isEqualTo(200);
      assertThat(normal.join().statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(server.plugin.statusJson())
              .get("limiters")
              .get(0)
              .get("serviceMaxMillis")
              .asDouble())
          .isPositive();
    }
  }

  @Test
  void aDisabledPluginAnswersTheSameTopLevelKeysWithNothingInThem() throws Exception {
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(Map.of("sluice.enabled", "false"))), (app, plugin) -> {})) {
      JsonNode status = JSON.readTree(server.plugin.statusJson());
      assertThat(status.fieldNames())
          .toIterable()
          .containsExactly("time", "enabled", "limiters", "rules", "store", "cpu", "history");
      assertThat(status.get("enabled").asBoolean()).isFalse();
      assertThat(status.get("limiters")).isEmpty();
      assertThat(status.get("rules")).isEmpty();
      assertThat(status.get("store").isNull()).isTrue();
      assertThat(status.get("cpu").isNull()).isTrue();
      assertThat(status.get("history").isNull()).isTrue();
    }
  }
}
