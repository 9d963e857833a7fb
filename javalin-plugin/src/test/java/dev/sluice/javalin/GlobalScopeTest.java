package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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

  private static SluiceProperties global(String cluster, String queueTimeout) {
    return SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.redis.uri", "memory://" + cluster,
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.max-concurrency", "2",
            "sluice.limiters.work.queue-timeout", queueTimeout,
            "sluice.limiters.work.scope", "global"))
        .build();
  }

  @Test
  void aRequestThatFindsEveryClusterLeaseTakenQueuesAndRunsWhenOneComesFree() {
    AtomicInteger leases = MemoryStoreProvider.leases("cluster-a", "work");
    leases.set(2); // other nodes hold both cluster-wide permits
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(global("cluster-a", "10s")).meterRegistry(registry),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("done")))) {
      CompletableFuture<HttpResponse<String>> waiting = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);
      assertThat(waiting).isNotDone();
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().inFlight())
          .isZero();
      // this node runs nothing; the cluster's leases are the other nodes'
      await()
          .until(() -> registry
                  .get("sluice.concurrency.cluster.leases")
                  .tag("limiter", "work")
                  .gauge()
                  .value()
              == 2);
      assertThat(registry
              .get("sluice.concurrency.in.flight")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isZero();
      // the store answers: its state is up, and nothing was decided without it
      assertThat(registry.get("sluice.store.state").tag("state", "up").gauge().value())
          .isOne();
      assertThat(registry.get("sluice.store.state").tag("state", "down").gauge().value())
          .isZero();
      assertThat(registry.get("sluice.store.degraded").functionCounter().count())
          .isZero();
      assertThat(server.plugin.statusJson()).contains("\"store\":{\"state\":\"up\"");
      // and the status counts the leases every node holds, beside this node's in-flight 0
      assertThat(server.plugin.statusJson())
          .contains("\"inFlight\":0")
          .contains("\"clusterLeases\":2");

      leases.decrementAndGet(); // another node finished a job

      assertThat(waiting.join().statusCode()).isEqualTo(200);
      await().until(() -> leases.get() == 1);
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().rejectedQueueFull())
          .isZero();
    }
  }

  @Test
  void aRequestWaitingForAClusterLeaseGets504AtItsQueueTimeout() {
    AtomicInteger leases = MemoryStoreProvider.leases("cluster-b", "work");
    leases.set(2);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(global("cluster-b", "300ms")),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("done")))) {
      HttpResponse<String> answer = server.get("/api/work");

      assertThat(answer.statusCode()).isEqualTo(504);
      assertThat(leases.get()).isEqualTo(2);
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 0);
    }
  }

  @Test
  void theSecondOfTwoRequestsOnOneNodeWaitsForTheFirstsLease() {
    AtomicInteger leases = MemoryStoreProvider.leases("cluster-c", "work");
    leases.set(1); // another node holds one of the two cluster-wide permits
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(global("cluster-c", "10s")),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(10, TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
      await().until(() -> leases.get() == 2);
      CompletableFuture<HttpResponse<String>> second = server.getAsync("/api/work");
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().queued() == 1);
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().inFlight())
          .isEqualTo(1);

      release.countDown();

      assertThat(first.join().statusCode()).isEqualTo(200);
      assertThat(second.join().statusCode()).isEqualTo(200);
      await().until(() -> leases.get() == 1);
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 0);
    }
  }

  @Test
  void globalScopeWithoutAStoreFailsStartUpNamingTheKey() {
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.scope", "global"))
        .build();

    assertThatThrownBy(() -> TestServer.start(cfg -> cfg.properties(props), (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.scope")
        .hasMessageContaining("sluice.redis.uri");
  }
}
