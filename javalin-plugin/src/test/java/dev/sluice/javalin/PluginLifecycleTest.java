package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin from start to stop on a real server: rules over a store that answers later, a reload
 * asked for in code, and what a stop ends (the polls, the page's sampling, Jetty's own waits).
 */
class PluginLifecycleTest {

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();

  @Test
  void aRuleDecidedLaterByTheStoreThenAQueueLetsTwoThroughAndRefusesTheThird() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, """
        rules:
          - id: api-global
            resource: /api/**
            actor: all
            limit: 2
            unit: minute
            scope: global
        """);
    MemoryStoreProvider.Rates store = MemoryStoreProvider.rates("lifecycle-pending");
    store.hold();
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.redis.uri",
            "memory://lifecycle-pending",
            "sluice.rules.file",
            rules.toString()))
        .build();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props)
            .limiter("item", l -> l.path("/api/item").maxConcurrency(1).maxQueue(4)),
        (app, plugin) -> app.routes.get("/api/item", ctx -> ctx.result("item")))) {
      assertThat(server.plugin.storeHealth()).isPresent();
      List<CompletableFuture<HttpResponse<String>>> sent = List.of(
          server.getAsync("/api/item"), server.getAsync("/api/item"), server.getAsync("/api/item"));
      await().until(() -> store.waiting() == 3);
      assertThat(sent).noneMatch(CompletableFuture::isDone);

      store.release();
      List<HttpResponse<String>> answers =
          sent.stream().map(CompletableFuture::join).toList();

      assertThat(answers).filteredOn(r -> r.statusCode() == 200).hasSize(2).allSatisfy(r -> {
        assertThat(r.body()).isEqualTo("item");
        assertThat(r.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
      });
      assertThat(answers)
          .filteredOn(r -> r.statusCode() == 429)
          .singleElement()
          .satisfies(r -> assertThat(r.body()).contains("\"rule\":\"api-global\""));
      await().until(() -> server.plugin.limiter("item").orElseThrow().snapshot().inFlight() == 0);
      assertThat(server.plugin.limiter("item").orElseThrow().snapshot().admitted())
          .isEqualTo(2);
    }
  }

  @Test
  void aReloadInCodeShowsInThePropertiesAndStoppingEndsEveryPollAndJettysOwnWaits()
      throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, """
        rules:
          - id: per-ip
            resource: /api/work
            actor: ip
            limit: 5
            unit: minute
        """);
    Path file = dir.resolve("sluice.properties");
    String common = String.join(
        "\n",
        "sluice.reload-interval=5s",
        "sluice.rules.file=" + rules,
        "sluice.rules.reload-interval=5s",
        "sluice.dashboard.path=/sluice",
        "sluice.shutdown.drain-timeout=3s",
        "sluice.limiters.work.path=/api/work",
        "");
    Files.writeString(file, common + "sluice.limiters.work.max-concurrency=1\n");
    SluiceProperties props =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    TestServer server = TestServer.start(
        cfg -> cfg.properties(props).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")));
    Server jetty = server.app.jettyServer().server();
    try {
      assertThat(jetty.getDescendant(DrainHandler.class)).as("a graceful stop").isNotNull();
      assertThat(jetty.getStopTimeout())
          .as("at least the drain timeout")
          .isGreaterThanOrEqualTo(3000);
      assertThat(time.pendingTasks())
          .as("properties poll, rules poll, route check of reloaded rules, page sampling")
          .isEqualTo(4);
      assertThat(server.get("/api/work").headers().firstValue("X-RateLimit-Limit"))
          .hasValue("5");

      Files.writeString(file, common + "sluice.limiters.work.max-concurrency=3\n");
      server.plugin.reload();
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().limit()).isEqualTo(3);
      assertThat(server.plugin.properties().get("sluice.limiters.work.max-concurrency"))
          .hasValue("3");
      assertThat(server.plugin.limiterConfig("work").orElseThrow().maxConcurrency())
          .isEqualTo(3);
    } finally {
      server.close();
    }
    assertThat(time.pendingTasks()).as("every poll and sampler ended").isZero();
    assertThat(jetty.getStopTimeout()).as("Sluice's drain replaced Jetty's").isZero();
    assertThat(((QueuedThreadPool) jetty.getThreadPool()).getStopTimeout())
        .isEqualTo(SluicePlugin.POOL_STOP_MILLIS);
  }
}
