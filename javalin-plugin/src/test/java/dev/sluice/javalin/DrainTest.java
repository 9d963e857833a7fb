package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.GracefulHandler;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A stop closes the listening socket at once and waits for every request Jetty runs, not only those holding a permit, and answers new ones
 * the drain answer meanwhile; with the handler Sluice inserts, or through a GracefulHandler the application
 * installed.
 */
@Tag("integration")
class DrainTest {

  @Test
  void aStopWaitsForARequestWithoutAPermitAndTurnsNewOnesAway() {
    stopWaitsForTheRunningRequest(false);
  }

  @Test
  void anApplicationsOwnGracefulHandlerIsWaitedThrough() {
    stopWaitsForTheRunningRequest(true);
  }

  private static void stopWaitsForTheRunningRequest(boolean ownGracefulHandler) {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch entered = new CountDownLatch(1);
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.shutdown.drain-timeout", "20s",
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.max-concurrency", "2"))
        .build();
    AtomicReference<Server> jetty = new AtomicReference<>();
    TestServer server = TestServer.start(cfg -> cfg.properties(props), (app, plugin) -> {
      app.jetty.modifyServer(s -> {
        jetty.set(s);
        if (ownGracefulHandler) {
          s.insertHandler(new GracefulHandler());
        }
      });
      app.routes.get("/api/unlimited", ctx -> {
        entered.countDown();
        release.await(30, TimeUnit.SECONDS);
        ctx.result("done");
      });
      app.routes.get("/api/other", ctx -> ctx.result("other"));
      app.routes.get("/api/work", ctx -> ctx.result("work"));
    });
    CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/unlimited");
    await().until(() -> entered.getCount() == 0);
    CompletableFuture<Void> stop = CompletableFuture.runAsync(server.app::stop);
    // while the stop waits, a new request is turned away: refused at connect (the listening socket
    // is closed) or, on a connection still open, given the drain answer
    await().until(() -> turnedAway(server));
    assertThat(stop).isNotDone();
    release.countDown();
    // the stop waited for it: the request ends with its own answer, not cut
    assertThat(running.orTimeout(10, TimeUnit.SECONDS).join().statusCode()).isEqualTo(200);
    stop.orTimeout(10, TimeUnit.SECONDS).join();
    if (!ownGracefulHandler) {
      assertThat(jetty.get().getDescendants(DrainHandler.class)).hasSize(1);
    }
  }

  /** Refused at connect, or answered 503 problem+json with Retry-After; false when served. */
  private static boolean turnedAway(TestServer server) {
    try {
      HttpResponse<String> r = server.getAsync("/api/other").join();
      assertThat(r.statusCode()).as(r.body()).isIn(200, 503);
      if (r.statusCode() == 503) {
        assertThat(r.headers().firstValue("Retry-After")).isPresent();
        assertThat(r.headers().firstValue("Content-Type")).hasValue("application/problem+json");
      }
      return r.statusCode() == 503;
    } catch (java.util.concurrent.CompletionException e) {
      assertThat(e).hasCauseInstanceOf(java.net.ConnectException.class);
      return true;
    }
  }
}
