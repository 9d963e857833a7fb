package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.limit.LimitState;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code limit}, {@code target-cpu}, {@code cpu-source}, {@code min-concurrency}, {@code
 * reject-early}, {@code expected-service-time}.
 */
@Tag("integration")
class AdaptiveLimitPropertiesTest {

  @TempDir
  Path dir;

  private Path file(String text) throws IOException {
    Path f = dir.resolve("sluice.properties");
    Files.writeString(f, text);
    return f;
  }

  private static SluiceProperties props(Path file) {
    return SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
  }

  private static LimitState state(TestServer server) {
    return server.plugin.limiter("work").orElseThrow().snapshot().limitState();
  }

  @Test
  void limitCpuHoldsTheTargetBetweenMinAndMaxConcurrency() throws IOException {
    Path f = file("""
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.limit=cpu
        sluice.limiters.work.target-cpu=60%
        sluice.limiters.work.cpu-source=process
        sluice.limiters.work.min-concurrency=2
        sluice.limiters.work.max-concurrency=8
        """);
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(f)),
        (app, p) -> app.routes.get("/api/work", ctx -> ctx.result("work")))) {
      LimitState state = state(server);
      assertThat(state.strategy()).isEqualTo("cpu");
      assertThat(state.targetCpu()).isEqualTo(0.6);
      assertThat(state.minLimit()).isEqualTo(2);
      assertThat(state.maxLimit()).isEqualTo(8);
      assertThat(state.limit()).isBetween(2, 8);
    }
  }

  @Test
  void badValuesFailStartupNamingKeyValueAndSource() throws IOException {
    for (String line : List.of(
        "target-cpu=1.5",
        "limit=adaptive",
        "cpu-source=gpu",
        "min-concurrency=0",
        "reject-early=maybe",
        "expected-service-time=fast",
        "expected-service-time=0s")) {
      Path f = file("sluice.limiters.work.path=/api/work\nsluice.limiters.work." + line + "\n");
      String[] kv = line.split("=");
      assertThatThrownBy(() -> TestServer.start(
              cfg -> cfg.properties(props(f)),
              (app, p) -> app.routes.get("/api/work", ctx -> ctx.result("work"))))
          .as(line)
          .isInstanceOf(SluiceConfigException.class)
          .hasMessageContaining("sluice.limiters.work." + kv[0])
          .hasMessageContaining(kv[1])
          .hasMessageContaining(f.toString());
    }
  }

  @Test
  void minConcurrencyAboveTheCeilingFailsStartup() throws IOException {
    Path f = file("""
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.limit=latency
        sluice.limiters.work.min-concurrency=9
        sluice.limiters.work.max-concurrency=8
        """);

    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.properties(props(f)),
            (app, p) -> app.routes.get("/api/work", ctx -> ctx.result("work"))))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.min-concurrency")
        .hasMessageContaining("max-concurrency");
  }

  @Test
  void reloadingTheStrategyTakesEffectWithoutRestart() throws IOException {
    Path f = file("sluice.limiters.work.path=/api/work\nsluice.limiters.work.max-concurrency=5\n");
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(f)),
        (app, p) -> app.routes.get("/api/work", ctx -> ctx.result("work")))) {
      assertThat(state(server)).isEqualTo(LimitState.fixed(5));

      Files.writeString(f, """
          sluice.limiters.work.path=/api/work
          sluice.limiters.work.limit=latency
          sluice.limiters.work.max-concurrency=50
          """);
      server.plugin.reload();

      LimitState latency = state(server);
      assertThat(latency.strategy()).isEqualTo("latency");
      assertThat(latency.maxLimit()).isEqualTo(50);
      assertThat(latency.limit()).as("starts from the limit in force").isEqualTo(5);

      Files.writeString(f, """
          sluice.limiters.work.path=/api/work
          sluice.limiters.work.limit=cpu
          sluice.limiters.work.target-cpu=0.5
          sluice.limiters.work.max-concurrency=50
          """);
      server.plugin.reload();
      assertThat(state(server).strategy()).isEqualTo("cpu");
      assertThat(state(server).targetCpu()).isEqualTo(0.5);

      Files.writeString(
          f, "sluice.limiters.work.path=/api/work\nsluice.limiters.work.max-concurrency=3\n");
      server.plugin.reload();
      assertThat(state(server)).isEqualTo(LimitState.fixed(3));
    }
  }

  @Test
  @SuppressWarnings("try") // the server only has to run during the block
  void gaugesShowTheControllersInputs() throws IOException {
    Path f = file("""
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.limit=cpu
        sluice.limiters.work.target-cpu=0.7
        sluice.limiters.work.max-concurrency=16
        """);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(props(f)).meterRegistry(registry),
        (app, p) -> app.routes.get("/api/work", ctx -> ctx.result("work")))) {
      assertThat(registry
              .get("sluice.concurrency.cpu.target")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isEqualTo(0.7);
      // the controller reads the CPU every 100 ms
      await()
          .atMost(10, TimeUnit.SECONDS)
          .until(() -> !Double.isNaN(registry
              .get("sluice.concurrency.cpu")
              .tag("limiter", "work")
              .gauge()
              .value()));
      assertThat(registry
              .get("sluice.concurrency.limit.exact")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isBetween(1.0, 16.0);
      assertThat(registry
              .get("sluice.concurrency.service.mean")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isNaN();
    }
  }

  /**
   * Jobs of about 50 ms on 4 permits, 100 ms of queue timeout: once 40 jobs were timed (the
   * prediction's bound is then about 85 % of their mean), a request with the permits taken and the
   * queue ahead worth more than 100 ms is answered 429 at once, with Retry-After, instead of a 504
   * later.
   */
  @Test
  void rejectEarlyAnswers429AtOnceWithRetryAfter() throws Exception {
    Path f = file("""
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.max-concurrency=4
        sluice.limiters.work.max-queue=100
        sluice.limiters.work.queue-timeout=100ms
        sluice.limiters.work.reject-early=true
        """);
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(cfg -> cfg.properties(props(f)), (app, p) -> {
      // the job, 50 ms that the limiter measures; a delay on a timer, no thread held while it runs
      app.routes.get(
          "/api/work",
          ctx -> ctx.future(() -> CompletableFuture.runAsync(
                  () -> {}, CompletableFuture.delayedExecutor(50, TimeUnit.MILLISECONDS))
              .thenRun(() -> ctx.result("done"))));
      app.routes.get("/api/hold", p.limited("work", ctx -> {
        release.await(20, TimeUnit.SECONDS);
        ctx.result("held");
      }));
    })) {
      for (int round = 0; round < 10; round++) { // 4 at a time: nobody waits, 40 jobs timed
        List<CompletableFuture<HttpResponse<String>>> training = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          training.add(server.getAsync("/api/work"));
        }
        training.forEach(CompletableFuture::join);
      }
      List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        held.add(server.getAsync("/api/hold"));
      }
      await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 4);

      List<CompletableFuture<HttpResponse<String>>> late = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        late.add(server.getAsync("/api/work"));
      }
      // 20 x 50 ms / 4 is far beyond 100 ms: the later ones are told at once. Which of the 20
      // arrive later is up to the client (concurrent requests reach the wire in any order), so
      // a refusal among them is looked at, not the last request sent
      await()
          .until(() ->
              server.plugin.limiter("work").orElseThrow().snapshot().rejectedPredictedWait() > 0);
      release.countDown();
      HttpResponse<String> last = late.stream()
          .map(CompletableFuture::join)
          .filter(answer -> answer.statusCode() == 429)
          .findFirst()
          .orElseThrow(() -> new AssertionError("no late request was refused with 429"));

      assertThat(last.statusCode()).isEqualTo(429);
      assertThat(last.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/problem+json");
      assertThat(Long.parseLong(last.headers().firstValue("Retry-After").orElseThrow()))
          .isPositive();
      held.forEach(CompletableFuture::join);
      late.forEach(CompletableFuture::join);
    }
  }

  /**
   * {@code expected-service-time} seeds a new limiter's prediction: with the one permit held and
   * no request finished yet, four requests' worth of 400 ms put the 12th in line past the 2 s
   * timeout (a bound of 169 ms each), so it is answered 429 {@code predicted_wait} at once.
   */
  @Test
  void expectedServiceTimeLetsANewLimiterRefuseBeforeAnyRequestFinished() throws Exception {
    Path f = file("""
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.max-concurrency=1
        sluice.limiters.work.max-queue=100
        sluice.limiters.work.queue-timeout=2s
        sluice.limiters.work.reject-early=true
        sluice.limiters.work.expected-service-time=400ms
        """);
    CountDownLatch release = new CountDownLatch(1);
    try (TestServer server = TestServer.start(cfg -> cfg.properties(props(f)), (app, p) -> {
      app.routes.get("/api/work", ctx -> ctx.result("done"));
      app.routes.get("/api/hold", p.limited("work", ctx -> {
        release.await(20, TimeUnit.SECONDS);
        ctx.result("held");
      }));
    })) {
      var limiter = server.plugin.limiter("work").orElseThrow();
      assertThat(limiter.spec().expectedServiceTime()).contains(java.time.Duration.ofMillis(400));
      CompletableFuture<HttpResponse<String>> held = server.getAsync("/api/hold");
      await().until(() -> limiter.snapshot().inFlight() == 1);

      List<CompletableFuture<HttpResponse<String>>> callers = new ArrayList<>();
      for (int i = 0; i < 12; i++) {
        callers.add(server.getAsync("/api/work"));
        int queued = i + 1;
        await()
            .until(() ->
                limiter.snapshot().queued() + limiter.snapshot().rejectedQueueFull() == queued);
      }
      HttpResponse<String> twelfth = callers.get(11).join();
      assertThat(limiter.snapshot().serviceCount()).isZero();
      release.countDown();

      assertThat(twelfth.statusCode()).isEqualTo(429);
      assertThat(twelfth.body()).contains("predicted_wait");
      held.join();
      // the first five are served; a later one may be told at a re-check if this machine was slow
      // to release the held request (its wait then no longer fits what is left of its 2 s)
      for (int i = 0; i < 11; i++) {
        HttpResponse<String> answer = callers.get(i).join();
        if (i < 5 || answer.statusCode() != 429) {
          assertThat(answer.statusCode()).as("caller %d", i).isEqualTo(200);
        } else {
          assertThat(answer.body()).as("caller %d", i).contains("predicted_wait");
        }
      }
    }
  }
}
