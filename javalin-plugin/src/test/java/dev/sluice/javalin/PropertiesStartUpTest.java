package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.LimiterConfig;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the plugin does with the properties it is given: start, refuse, reload. */
@Tag("integration")
class PropertiesStartUpTest {

  @TempDir
  Path dir;

  private Path file(String text) throws IOException {
    Path f = dir.resolve("sluice.properties");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void aBadValueFailsStartUpNamingKeyAndValue() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.limiters.transcode.path",
            "/api/transcode",
            "sluice.limiters.transcode.max-queue",
            "-1"))
        .build();

    assertThatThrownBy(() -> TestServer.start(cfg -> cfg.properties(p), (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.transcode.max-queue")
        .hasMessageContaining("'-1'");
  }

  @Test
  void redisUriWithoutAProviderFailsStartUpNamingTheKey() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of())
        // limiter-redis is on the test classpath (redis://); no provider knows this scheme
        .system(Map.of("sluice.redis.uri", "memcached://127.0.0.1:11211"))
        .build();

    assertThatThrownBy(() -> TestServer.start(cfg -> cfg.properties(p), (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.redis.uri")
        .hasMessageContaining("StoreProvider");
  }

  @Test
  void envOverrideReachesTheRunningLimiter() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of("SLUICE_LIMITERS_WORK_MAX_CONCURRENCY", "7"))
        .system(Map.of())
        .build();

    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(p).limiter("work", l -> l.path("/api/work").maxConcurrency(2)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")))) {
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().limit()).isEqualTo(7);
    }
  }

  @Test
  void aLimitersConfigIsTheOneItRunsWithAndEmptyForAnUnknownName() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of("SLUICE_LIMITERS_WORK_QUEUE_KEY", "header:X-Host-Id"))
        .system(Map.of())
        .build();

    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(p)
            .limiter("work", l -> l.path("/api/work").maxConcurrency(2).maxQueue(3)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")))) {
      LimiterConfig config = server.plugin.limiterConfig("work").orElseThrow();
      assertThat(config.name()).isEqualTo("work");
      assertThat(config.path()).contains("/api/work");
      assertThat(config.maxQueue()).isEqualTo(3);
      assertThat(config.queueKey()).isEqualTo("header:X-Host-Id");
      assertThat(server.plugin.limiter("work").orElseThrow().spec().maxQueue()).isEqualTo(3);
      assertThat(server.plugin.limiterConfig("wrok")).isEmpty();
    }
  }

  @Test
  void reloadedFileChangesLimitsWithoutRestart() throws IOException {
    Path f = file("""
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.max-concurrency=1
        sluice.limiters.work.max-queue=0
        """);
    SluiceProperties p =
        SluiceProperties.builder().file(f).env(Map.of()).system(Map.of()).build();
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(p),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(10, java.util.concurrent.TimeUnit.SECONDS);
          ctx.result("done");
        }))) {
      var first = server.getAsync("/api/work");
      org.awaitility.Awaitility.await()
          .until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
      assertThat(server.get("/api/work").statusCode()).isEqualTo(429);

      Files.writeString(f, """
          sluice.limiters.work.path=/api/work
          sluice.limiters.work.max-concurrency=2
          sluice.limiters.work.max-queue=5
          """);
      server.plugin.reload();

      var snapshot = server.plugin.limiter("work").orElseThrow().snapshot();
      assertThat(snapshot.limit()).isEqualTo(2);
      assertThat(snapshot.maxQueue()).isEqualTo(5);
      var second = server.getAsync("/api/work");
      org.awaitility.Awaitility.await()
          .until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 2);
      release.countDown();
      assertThat(first.join().statusCode()).isEqualTo(200);
      assertThat(second.join().statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aBadReloadKeepsThePreviousLimits() throws IOException {
    Path f = file("sluice.limiters.work.path=/api/work\nsluice.limiters.work.max-concurrency=3\n");
    SluiceProperties p =
        SluiceProperties.builder().file(f).env(Map.of()).system(Map.of()).build();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(p),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")))) {
      Files.writeString(
          f, "sluice.limiters.work.path=/api/work\nsluice.limiters.work.max-concurrency=zero\n");

      assertThatThrownBy(server.plugin::reload).hasMessageContaining("'zero'");
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().limit()).isEqualTo(3);
    }
  }
}
