package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Global rules over a store that answers later on its own thread (as Redis does on Lettuce's I/O
 * thread): requests wait through {@code ctx.future} without holding a Jetty thread, and resume on
 * the executor, never on the store's thread.
 */
@Tag("integration")
class AsyncStoreRulesTest {

  @TempDir
  Path dir;

  @Test
  void requestsWaitForTheStoreWithoutAThreadAndGetTheStoresAnswer() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, """
        rules:
          - id: api-global
            resource: /api/**
            actor: all
            limit: 3
            unit: minute
            scope: global\
        """);
    MemoryStoreProvider.Rates store = MemoryStoreProvider.rates("async-a");
    store.hold();
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(
            Map.of("sluice.redis.uri", "memory://async-a", "sluice.rules.file", rules.toString()))
        .build();
    Set<String> endpointThreads = ConcurrentHashMap.newKeySet();
    int requests = 20;
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props)
            // admitted by the rule, then through a limiter: the limiter's wait follows the store's
            .limiter("item", l -> l.path("/api/item").maxConcurrency(1).maxQueue(requests)),
        (app, plugin) -> {
          app.jetty.threadPool = new QueuedThreadPool(8, 2);
          app.routes.get("/api/item", ctx -> {
            endpointThreads.add(Thread.currentThread().getName());
            ctx.result("item");
          });
        })) {
      List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
      for (int i = 0; i < requests; i++) {
        sent.add(server.getAsync("/api/item"));
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> store.waiting() == requests);

      // more requests wait than Jetty has threads: none of them holds one
      HttpResponse<String> health =
          server.getAsync("/health").orTimeout(2, TimeUnit.SECONDS).join();
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(sent).noneMatch(CompletableFuture::isDone);

      store.release();
      List<HttpResponse<String>> answers =
          sent.stream().map(CompletableFuture::join).toList();
      await().until(() -> server.plugin.limiter("item").orElseThrow().snapshot().inFlight() == 0);

      List<HttpResponse<String>> ok =
          answers.stream().filter(r -> r.statusCode() == 200).toList();
      List<HttpResponse<String>> limited =
          answers.stream().filter(r -> r.statusCode() == 429).toList();
      assertThat(ok).hasSize(3);
      assertThat(limited).hasSize(requests - 3);
      assertThat(ok).allSatisfy(r -> {
        assertThat(r.body()).isEqualTo("item");
        assertThat(r.headers().firstValue("X-RateLimit-Limit")).hasValue("3");
        assertThat(r.headers().firstValue("RateLimit-Policy")).hasValue("\"api-global\";q=3;w=60");
      });
      assertThat(ok)
          .extracting(r -> r.headers().firstValue("X-RateLimit-Remaining").orElseThrow())
          .containsExactlyInAnyOrder("0", "1", "2");
      assertThat(limited).allSatisfy(r -> {
        assertThat(r.headers().firstValue("Content-Type").orElse(""))
            .startsWith("application/problem+json");
        assertThat(r.body()).contains("\"rule\":\"api-global\"", "\"status\":429");
        assertThat(r.headers().firstValue("Retry-After")).hasValue("30");
        assertThat(r.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
        assertThat(r.headers().firstValue("RateLimit")).hasValue("\"api-global\";r=0;t=30");
      });
      assertThat(endpointThreads)
          .isNotEmpty()
          .noneMatch(name -> name.equals(MemoryStoreProvider.STORE_THREAD_NAME));
    }
  }
}
