package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Endpoints wrapped with {@link SluicePlugin#limited}, a context path, and a request parked too
 * long, on a real server: who waits, who runs, and what the answers carry.
 */
class WrappedHandlerTest {

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger runs = new AtomicInteger();
  private final List<String> threads = new CopyOnWriteArrayList<>();
  private TestServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private static SluiceProperties props(Map<String, String> system) {
    return SluiceProperties.builder().env(Map.of()).system(system).build();
  }

  /** The first run waits for {@link #release}; later runs answer at once. */
  private String firstWaits() throws InterruptedException {
    if (runs.incrementAndGet() == 1) {
      release.await(20, TimeUnit.SECONDS);
      return "first";
    }
    threads.add(Thread.currentThread().getName());
    return "run " + runs.get();
  }

  private ConcurrencySnapshot snapshot(String limiter) {
    return server.plugin.limiter(limiter).orElseThrow().snapshot();
  }

  @Test
  void aWrappedHandlerWaitsForItsPermitThenRunsAndAFullQueueIs429WithTheLimitersPolicy() {
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of("sluice.headers.concurrency", "true")))
            .limiter("rescue", l -> l.maxConcurrency(1).maxQueue(1)),
        (app, plugin) -> app.routes.get(
            "/api/rescue", plugin.limited("rescue", ctx -> ctx.result(firstWaits()))));

    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/rescue");
    await().until(() -> snapshot("rescue").inFlight() == 1);
    CompletableFuture<HttpResponse<String>> second = server.getAsync("/api/rescue");
    await().until(() -> snapshot("rescue").queued() == 1);

    HttpResponse<String> full = server.get("/api/rescue");
    assertThat(full.statusCode()).isEqualTo(429);
    assertThat(full.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"rescue\";q=1;qu=\"concurrent-requests\"");
    assertThat(full.headers().firstValue("RateLimit")).hasValue("\"rescue\";r=0");
    assertThat(runs).as("the refused request never ran the handler").hasValue(1);

    release.countDown();
    assertThat(first.join().body()).isEqualTo("first");
    HttpResponse<String> waited = second.join();
    assertThat(waited.statusCode()).isEqualTo(200);
    assertThat(waited.body()).isEqualTo("run 2");
    assertThat(threads)
        .as("a woken waiter runs on the server's own threads")
        .singleElement()
        .asString()
        .startsWith("JettyServerThreadPool");
    assertThat(waited.headers().firstValue("RateLimit"))
        .as("granted after waiting: it holds the one permit")
        .hasValue("\"rescue\";r=0");
    await().until(() -> snapshot("rescue").inFlight() == 0);
    assertThat(snapshot("rescue").admitted()).isEqualTo(2);
    assertThat(snapshot("rescue").rejectedQueueFull()).isEqualTo(1);
  }

  @Test
  void aLimiterPathCountsUnderTheApplicationsContextPath() {
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of()))
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(0)),
        (app, plugin) -> {
          app.router.contextPath = "/app";
          app.routes.get("/api/work", ctx -> ctx.result(firstWaits()));
        });

    CompletableFuture<HttpResponse<String>> first = server.getAsync("/app/api/work");
    await().until(() -> snapshot("work").inFlight() == 1);
    assertThat(server.get("/app/api/work").statusCode()).isEqualTo(429);
    release.countDown();
    assertThat(first.join().body()).isEqualTo("first");
    assertThat(server.get("/app/health").body()).as("not limited").isEqualTo("up");
    await().until(() -> snapshot("work").inFlight() == 0);
    assertThat(snapshot("work").admitted()).isEqualTo(1);
  }

  @Test
  void aWrappedRequestParkedPastTheAsyncTimeoutLeavesTheQueueAndItsHandlerNeverRuns() {
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of()))
            .limiter("rescue", l -> l.maxConcurrency(1).maxQueue(4)),
        (app, plugin) -> {
          app.http.asyncTimeout = 200;
          app.routes.get("/api/rescue", plugin.limited("rescue", ctx -> ctx.result(firstWaits())));
        });

    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/rescue");
    await().until(() -> snapshot("rescue").inFlight() == 1);
    HttpResponse<String> parked = server.get("/api/rescue");

    // Javalin answers a wrapped endpoint's own timeout itself; what matters here is that the
    // waiter left the queue and the handler never ran
    assertThat(parked.statusCode()).isNotEqualTo(200);
    await().until(() -> snapshot("rescue").cancelled() == 1);
    assertThat(snapshot("rescue").queued()).isZero();
    assertThat(runs).hasValue(1);
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    await().until(() -> snapshot("rescue").inFlight() == 0);
  }

  @Test
  void wrappingAMisspeltLimiterNamesTheNearestOne() {
    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.properties(props(Map.of())).limiter("rescue", l -> l.maxConcurrency(1)),
            (app, plugin) -> app.routes.get("/x", plugin.limited("rescue2", ctx -> {}))))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("no Sluice limiter named 'rescue2'")
        .hasMessageContaining("sluice.limiters.rescue2.*")
        .hasMessageContaining("did you mean 'rescue'?");
  }

  @Test
  void aLimiterThatGuardsNothingStopsStartUpNamingItsSourceAndTheNearestName() {
    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.properties(props(Map.of(
                    "sluice.limiters.work.path", "/api/work",
                    "sluice.limiters.wrok.max-concurrency", "3")))
                .limiter("work", l -> l.maxConcurrency(2)),
            (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work"))))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("limiter 'wrok' has neither a path nor a handler wrapped with"
            + " sluice.limited(\"wrok\", handler)")
        .hasMessageContaining("did you mean limiter 'work'?")
        .hasMessageContaining("system property");
  }

  @Test
  void aLimiterFromCodeWithoutAPathOrWrapperSaysCodeAndAWrappedOneStarts() {
    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.properties(props(Map.of())).limiter("lonely", l -> l.maxConcurrency(2)),
            (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("limiter 'lonely' has neither a path")
        .hasMessageNotContaining("did you mean");

    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of())).limiter("lonely", l -> l.maxConcurrency(2)),
        (app, plugin) -> app.routes.get("/x", plugin.limited("lonely", ctx -> ctx.result("x"))));
    assertThat(server.get("/x").body()).isEqualTo("x");
    assertThat(snapshot("lonely").admitted()).isEqualTo(1);
  }

  @Test
  void aDisabledPluginLimitsNothingReportsDisabledAndItsWrapperSaysSo() {
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of(
            "sluice.enabled", "false",
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.max-concurrency", "1"))),
        (app, plugin) -> {
          app.routes.get("/api/work", ctx -> ctx.result(String.valueOf(plugin.discardBody(ctx))));
          app.routes.get("/api/wrapped", plugin.limited("anything", ctx -> ctx.result("x")));
        });

    assertThat(server.get("/api/work").body()).as("no body left unread").isEqualTo("true");
    assertThat(server.plugin.limiter("work")).isEmpty();
    assertThat(server.plugin.snapshots()).isEmpty();
    assertThat(server.plugin.statusJson()).contains("\"enabled\":false");
    assertThat(server.plugin.properties().get("sluice.enabled")).hasValue("false");
    assertThat(server.get("/api/wrapped").statusCode()).isEqualTo(500);
    server.plugin.reload(); // nothing to reload
  }

  @Test
  void aQueuedWrappedRequestWaitsNoLongerThanItsQueueTimeout() {
    VirtualTime time = new VirtualTime();
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of()))
            .clock(time)
            .scheduler(time)
            .limiter(
                "rescue", l -> l.maxConcurrency(1).maxQueue(1).queueTimeout(Duration.ofSeconds(2))),
        (app, plugin) -> app.routes.get(
            "/api/rescue", plugin.limited("rescue", ctx -> ctx.result(firstWaits()))));

    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/rescue");
    await().until(() -> snapshot("rescue").inFlight() == 1);
    CompletableFuture<HttpResponse<String>> late = server.getAsync("/api/rescue");
    await().until(() -> snapshot("rescue").queued() == 1);
    time.advance(Duration.ofSeconds(2));

    assertThat(late.join().statusCode()).isEqualTo(504);
    assertThat(late.join().body()).contains("queue_timeout");
    assertThat(runs).hasValue(1);
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
  }
}
