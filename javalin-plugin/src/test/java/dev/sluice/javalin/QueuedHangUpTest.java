package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencySnapshot;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * An HTTP/1.1 client that hangs up while its request waits in a limiter's queue, on a real server:
 * Jetty does not notice it while the request is suspended, the plugin's disconnect watch does.
 */
class QueuedHangUpTest {

  private final CountDownLatch release = new CountDownLatch(1);
  private final AtomicInteger runs = new AtomicInteger();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private TestServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private static ConditionFactory soon() {
    return await()
        .atMost(Duration.ofSeconds(3))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5));
  }

  private ConcurrencySnapshot work() {
    return server.plugin.limiter("work").orElseThrow().snapshot();
  }

  private Counter rejections(String reason) {
    return registry.find("sluice.http.rejections").tag("reason", reason).counter();
  }

  @Test
  void aQueuedClientThatHangsUpLeavesTheQueueAsACancelAndItsPlaceGoesToTheNext()
      throws IOException {
    server = TestServer.start(
        cfg -> cfg.properties(ConcurrencyAnswersTest.noEnv())
            .meterRegistry(registry)
            .limiter("work", l -> l.path("/api/work").maxConcurrency(1).maxQueue(1)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          runs.incrementAndGet();
          release.await(5, TimeUnit.SECONDS);
          ctx.result("done");
        }));
    CompletableFuture<HttpResponse<String>> first = server.getAsync("/api/work");
    soon().until(() -> work().inFlight() == 1);

    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.app.port())) {
      socket
          .getOutputStream()
          .write("GET /api/work HTTP/1.1\r\nHost: localhost\r\n\r\n"
              .getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      soon().until(() -> work().queued() == 1);
    } // the client hangs up while its request waits

    soon().until(() -> work().queued() == 0);
    assertThat(work().cancelled()).isEqualTo(1);
    // a hang-up is a cancel in every count, never a queue timeout (a 504 alert must not fire)
    soon().until(() -> rejections("cancelled") != null);
    assertThat(rejections("cancelled").count()).isEqualTo(1);
    assertThat(rejections("queue_timeout")).isNull();

    // the freed place in the queue takes the next waiter, who runs after the first
    CompletableFuture<HttpResponse<String>> next = server.getAsync("/api/work");
    soon().until(() -> work().queued() == 1);
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    assertThat(next.join().body()).isEqualTo("done");
    assertThat(runs).as("the request whose client left never ran").hasValue(2);
    soon().until(() -> work().inFlight() == 0);
    assertThat(work().cancelled()).isEqualTo(1);
  }
}
