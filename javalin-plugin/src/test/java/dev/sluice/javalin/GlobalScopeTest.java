package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("integration")
class GlobalScopeTest {

  @Test
  void globalLimiterIsCappedByTheLeasesOfEveryNode() {
    AtomicInteger leases = MemoryStoreProvider.leases("cluster-a", "work");
    leases.set(1); // another node holds one of the two cluster-wide permits
    SluiceProperties props = SluiceProperties.builder().env(Map.of()).system(Map.of(
        "sluice.redis.uri", "memory://cluster-a",
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.max-concurrency", "2",
        "sluice.limiters.work.scope", "global")).build();
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(cfg -> cfg.properties(props), (app, plugin) ->
        app.routes.get("/api/work", ctx -> {
          release.await(10, TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
      await().until(() -> leases.get() == 2);

      HttpResponse<String> second = server.get("/api/work");

      assertThat(second.statusCode()).isEqualTo(429);
      assertThat(second.body()).contains("queue-full");
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().inFlight()).isEqualTo(1);
      release.countDown();
      assertThat(first.join().statusCode()).isEqualTo(200);
      await().until(() -> leases.get() == 1);
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 0);
    }
  }

  @Test
  void globalScopeWithoutAStoreFailsStartUpNamingTheKey() {
    SluiceProperties props = SluiceProperties.builder().env(Map.of()).system(Map.of(
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.scope", "global")).build();

    assertThatThrownBy(() -> TestServer.start(cfg -> cfg.properties(props), (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.scope")
        .hasMessageContaining("sluice.redis.uri");
  }
}
