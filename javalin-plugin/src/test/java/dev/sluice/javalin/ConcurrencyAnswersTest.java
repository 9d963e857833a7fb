package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

@Tag("integration")
class ConcurrencyAnswersTest {

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger endpointRuns = new AtomicInteger();
  private final AtomicInteger blockCalls = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicBoolean ranInsideARelease =
      new java.util.concurrent.atomic.AtomicBoolean();
  private TestServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private final io.micrometer.core.instrument.simple.SimpleMeterRegistry registry =
      new io.micrometer.core.instrument.simple.SimpleMeterRegistry();

  private void startWork(int maxConcurrency, int maxQueue) {
    server = TestServer.start(
        cfg -> cfg.properties(noEnv())
            .meterRegistry(registry)
            .limiter(
                "work", l -> l.path("/api/work").maxConcurrency(maxConcurrency).maxQueue(maxQueue)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result(block())));
  }

  static SluiceProperties noEnv() {
    return SluiceProperties.builder()
        .env(java.util.Map.of())
        .system(java.util.Map.of())
        .build();
  }

  private String block() throws InterruptedException {
    blockCalls.incrementAndGet();
    for (StackTraceElement frame : Thread.currentThread().getStackTrace()) {
      if (frame.getClassName().equals(Gate.class.getName())
          && frame.getMethodName().equals("after")) {
        ranInsideARelease.set(true); // a woken waiter run inline on the releasing request's thread
      }
    }
    release.await(20, TimeUnit.SECONDS);
    return "done";
  }

  private ConcurrencySnapshot work() {
    return server.plugin.limiter("work").orElseThrow().snapshot();
  }

  @Test
  void queueFullAnswers429WithRetryAfterAndProblemJson() {
    startWork(1, 1);
    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> second = server.getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    HttpResponse<String> full = server.get("/api/work");

    assertThat(full.statusCode()).isEqualTo(429);
    assertThat(full.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
    assertThat(full.headers().firstValue("Retry-After").map(Long::parseLong))
        .hasValueSatisfying(s -> assertThat(s).isGreaterThanOrEqualTo(1));
    assertThat(full.body())
        .contains(
            "\"type\":\"https://sluice.dev/problems/queue-full\"",
            "\"status\":429",
            "\"limiter\":\"work\"",
            "\"title\":\"Queue full\"",
            "\"detail\":");
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    assertThat(second.join().body()).isEqualTo("done");
    assertThat(ranInsideARelease).isFalse();
  }

  @Test
  // requests left in flight to hold the limiter's permits or queue; the test asserts on the other
  // answers
  @SuppressWarnings("FutureReturnValueIgnored")
  void healthAnswersWhileTheQueueIsFull() {
    startWork(1, 0);
    server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    assertThat(server.get("/api/work").statusCode()).isEqualTo(429);

    assertThat(server.get("/health").statusCode()).isEqualTo(200);
  }

  @Test
  // requests left in flight to hold the limiter's permits or queue; the test asserts on the other
  // answers
  @SuppressWarnings("FutureReturnValueIgnored")
  void queuedWaiterTimesOutWith504() {
    VirtualTime time = new VirtualTime();
    server = TestServer.start(
        cfg -> cfg.properties(noEnv())
            .clock(time)
            .scheduler(time)
            .limiter(
                "work",
                l -> l.path("/api/work")
                    .maxConcurrency(1)
                    .maxQueue(4)
                    .queueTimeout(Duration.ofSeconds(30))),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result(block())));
    server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> waiting = server.getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    time.advance(Duration.ofSeconds(30));

    HttpResponse<String> timedOut = waiting.join();
    assertThat(timedOut.statusCode()).isEqualTo(504);
    assertThat(timedOut.body()).contains("queue-timeout", "\"status\":504", "\"limiter\":\"work\"");
    assertThat(timedOut.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
  }

  @Test
  void theFirstDeclaredLimiterWhosePathMatchesGuardsTheRequest() {
    SluiceProperties props = SluiceProperties.builder()
        .env(java.util.Map.of())
        .system(java.util.Map.of(
            "sluice.limiters.zz-heavy.path",
            "/api/heavy",
            "sluice.limiters.aa-all.path",
            "/api/**"))
        .build();
    server = TestServer.start(
        cfg -> cfg.properties(props)
            .limiter("zz-heavy", l -> l.maxConcurrency(1))
            .limiter("aa-all", l -> l.maxConcurrency(5)),
        (app, plugin) -> {
          app.routes.get("/api/heavy", ctx -> ctx.result("heavy"));
          app.routes.get("/api/light", ctx -> ctx.result("light"));
        });

    server.get("/api/heavy");
    server.get("/api/light");

    assertThat(server.plugin.limiter("zz-heavy").orElseThrow().snapshot().admitted())
        .isEqualTo(1);
    assertThat(server.plugin.limiter("aa-all").orElseThrow().snapshot().admitted())
        .isEqualTo(1);
  }

  @Test
  void wrappingAnUnknownLimiterFailsAtOnce() {
    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.properties(noEnv()),
            (app, plugin) -> app.routes.get("/x", plugin.limited("nope", ctx -> ctx.result("x")))))
        .hasMessageContaining("'nope'");
  }

  @Test
  void handlerThatThrowsReleasesItsPermit() {
    server = TestServer.start(
        cfg -> cfg.properties(noEnv())
            .limiter("boom", l -> l.path("/api/boom").maxConcurrency(1).maxQueue(0)),
        (app, plugin) -> app.routes.get("/api/boom", ctx -> {
          throw new IllegalStateException("handler failed");
        }));

    assertThat(server.get("/api/boom").statusCode()).isEqualTo(500);
    assertThat(server.get("/api/boom").statusCode())
        .isEqualTo(500); // not 429: the permit came back
    ConcurrencySnapshot s = server.plugin.limiter("boom").orElseThrow().snapshot();
    assertThat(s.inFlight()).isZero();
    assertThat(s.admitted()).isEqualTo(2);
  }

  @Test
  void wrappedHandlerIsLimitedByName() {
    server = TestServer.start(
        cfg ->
            cfg.properties(noEnv()).limiter("rescue", l -> l.maxConcurrency(1).maxQueue(0)),
        (app, plugin) -> {
          app.routes.get("/api/rescue", plugin.limited("rescue", ctx -> ctx.result(block())));
        });
    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/rescue");
    await().until(() -> server.plugin.limiter("rescue").orElseThrow().snapshot().inFlight() == 1);

    assertThat(server.get("/api/rescue").statusCode()).isEqualTo(429);
    release.countDown();
    assertThat(first.join().body()).isEqualTo("done");
    await().until(() -> server.plugin.limiter("rescue").orElseThrow().snapshot().inFlight() == 0);
  }

  @Test
  void aPermitGrantedAtOnceOnThePathCountsForItsWrappedHandlerAndBesideASecondLimiter() {
    server = TestServer.start(
        cfg -> cfg.properties(noEnv())
            .limiter("same", l -> l.path("/api/same").maxConcurrency(1).maxQueue(0))
            .limiter("outer", l -> l.path("/api/both").maxConcurrency(1).maxQueue(0))
            .limiter("inner", l -> l.maxConcurrency(1).maxQueue(0)),
        (app, plugin) -> {
          app.routes.get("/api/same", plugin.limited("same", ctx -> ctx.result("same")));
          app.routes.get("/api/both", plugin.limited("inner", ctx -> ctx.result(block())));
        });
    // the path's permit is the wrapper's too: a second ask of a full limiter would be a 429
    assertThat(server.get("/api/same").body()).isEqualTo("same");
    assertThat(snapshot("same").inFlight()).isZero();

    CompletableFuture<HttpResponse<String>> both = server.getAsync("/api/both");
    await().until(() -> snapshot("outer").inFlight() == 1 && snapshot("inner").inFlight() == 1);
    assertThat(server.get("/api/both").statusCode()).isEqualTo(429);
    release.countDown();
    assertThat(both.join().body()).isEqualTo("done");
    // both permits came back, once each
    await().until(() -> snapshot("outer").inFlight() == 0 && snapshot("inner").inFlight() == 0);
    assertThat(snapshot("outer").admitted()).isEqualTo(1);
    assertThat(snapshot("inner").admitted()).isEqualTo(1);
    assertThat(server.get("/api/same").body()).isEqualTo("same");
    assertThat(snapshot("same").admitted()).isEqualTo(2);
  }

  private ConcurrencySnapshot snapshot(String limiter) {
    return server.plugin.limiter(limiter).orElseThrow().snapshot();
  }

  @Test
  void http11ClientThatDisconnectsWhileQueuedLeavesTheQueue() throws Exception {
    startWork(1, 4);
    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    try (java.net.Socket socket =
        new java.net.Socket(InetAddress.getLoopbackAddress(), server.app.port())) {
      socket
          .getOutputStream()
          .write("GET /api/work HTTP/1.1\r\nHost: localhost\r\n\r\n"
              .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      await().until(() -> work().queued() == 1);
    } // the client goes away while queued

    await().until(() -> work().queued() == 0);
    assertThat(work().cancelled()).isEqualTo(1);
    assertThat(work().inFlight()).isEqualTo(1);
    // a disconnect is a cancel in every count, never a 504 (an alert on 504s must not fire)
    await()
        .until(() ->
            registry.find("sluice.http.rejections").tag("reason", "cancelled").counter() != null);
    assertThat(registry
            .find("sluice.http.rejections")
            .tag("reason", "queue_timeout")
            .counter())
        .isNull();
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    await().until(() -> work().inFlight() == 0);
    assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
    assertThat(blockCalls).hasValue(2); // first and last: the vanished request never ran
  }

  /**
   * Any end of a parked request that the container reports (an async timeout here; an HTTP/2 reset
   * or a server stop alike) takes the waiter out of the queue and leaks no permit. Jetty does not
   * report a vanished HTTP/1.1 client while the request is suspended (jetty/jetty.project#238).
   * Javalin resumes a timed-out request's chain, endpoint included: the guard must stop that.
   */
  @Test
  void waiterWhoseRequestEndsLeavesTheQueueWithoutLeakingAPermit() {
    server = TestServer.start(
        cfg -> cfg.properties(noEnv())
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(4)),
        (app, plugin) -> {
          app.http.asyncTimeout = 300;
          app.routes.get("/api/work", ctx -> {
            endpointRuns.incrementAndGet();
            ctx.result(block());
          });
        });
    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> abandoned = server.getAsync("/api/work");

    await().until(() -> work().cancelled() == 1);
    assertThat(work().queued()).isZero();
    assertThat(abandoned.join().statusCode()).isEqualTo(504);
    assertThat(endpointRuns).hasValue(1);
    assertThat(work().inFlight()).isEqualTo(1);
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    await().until(() -> work().inFlight() == 0);
    assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
    await().until(() -> work().inFlight() == 0);
  }

  @Test
  void queuedRequestsHoldNoJettyThread() {
    server = TestServer.start(
        cfg -> cfg.properties(noEnv())
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(100)),
        (app, plugin) -> {
          app.jetty.threadPool = new QueuedThreadPool(8, 2);
          app.routes.get("/api/work", ctx -> ctx.result(block()));
        });
    List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
    for (int i = 0; i < 101; i++) {
      requests.add(server.getAsync("/api/work"));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> work().queued() == 100);
    assertThat(work().inFlight()).isEqualTo(1);

    HttpResponse<String> health =
        server.getAsync("/health").orTimeout(2, TimeUnit.SECONDS).join();

    assertThat(health.statusCode()).isEqualTo(200);
    release.countDown();
    assertThat(requests).allSatisfy(r -> assertThat(r.join().statusCode()).isEqualTo(200));
  }

  @Test
  void serverStopRejectsTheQueueWith503AndLetsInFlightFinish() {
    startWork(1, 4);
    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> queued = server.getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    // its own thread: stop blocks while draining, and the common pool may have a single thread
    java.util.concurrent.ExecutorService stopper =
        java.util.concurrent.Executors.newSingleThreadExecutor();
    CompletableFuture<Void> stopping = CompletableFuture.runAsync(server.app::stop, stopper);
    stopper.shutdown();

    HttpResponse<String> rejected = queued.join();
    assertThat(rejected.statusCode()).isEqualTo(503);
    assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
    assertThat(rejected.body()).contains("shutting-down", "\"status\":503");
    assertThat(work().shutdown()).isTrue();
    assertThat(stopping).isNotDone();
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    stopping.join();
    server = null;
  }
}
