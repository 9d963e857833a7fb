package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The queue properties end to end: a fair limiter keyed by a header, with a per-key cap and
 * priority classes, answering key-cap and displacement as 429s with a reason, counting them in
 * the metrics, and changing its discipline on reload without dropping a queued request.
 */
@Tag("integration")
class FairQueueHttpTest {

  private static final String WORK = "sluice.limiters.work.";
  private static final String FAIR = WORK + "path=/api/work\n" + WORK + "max-concurrency=1\n"
      + WORK + "max-queue=3\n" + WORK + "queue=fair\n" + WORK + "queue-key=header:X-Host-Id\n"
      + WORK + "max-queue-per-key=1\n" + WORK + "priority-header=X-Priority\n";

  @TempDir
  Path dir;

  private final CountDownLatch release = new CountDownLatch(1);
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private TestServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private Path start(String properties) throws IOException {
    Path file = dir.resolve("sluice.properties");
    Files.writeString(file, properties);
    SluiceProperties p =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    server = TestServer.start(
        cfg -> cfg.properties(p).meterRegistry(registry),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          release.await(20, TimeUnit.SECONDS);
          ctx.result("done");
        }));
    return file;
  }

  private ConcurrencyLimiter work() {
    return server.plugin.limiter("work").orElseThrow();
  }

  private CompletableFuture<HttpResponse<String>> queue(
      String host, String priority, int queuedAfter) {
    CompletableFuture<HttpResponse<String>> response =
        server.getAsync("/api/work", "X-Host-Id", host, "X-Priority", priority);
    await().until(() -> work().snapshot().queued() == queuedAfter || response.isDone());
    return response;
  }

  private double rejected(String reason) {
    return registry
        .get(SluiceMeterBinder.REQUESTS)
        .tags("limiter", "work", "outcome", "rejected", "reason", reason)
        .counter()
        .count();
  }

  @Test
  void aKeyOverItsCapAndADisplacedWaiterAreAnswered429WithTheirReason() throws IOException {
    start(FAIR);
    CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work");
    await().until(() -> work().snapshot().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> greedy = queue("greedy", "normal", 1);

    HttpResponse<String> capped = server.get("/api/work", "X-Host-Id", "greedy");
    CompletableFuture<HttpResponse<String>> shed1 = queue("b", "sheddable", 2);
    CompletableFuture<HttpResponse<String>> shed2 = queue("c", "sheddable", 3);
    CompletableFuture<HttpResponse<String>> critical = queue("d", "CRITICAL", 3);
    HttpResponse<String> displaced = shed2.join();

    assertThat(capped.statusCode()).isEqualTo(429);
    assertThat(capped.body()).contains("\"reason\":\"key_cap\"", "\"title\":\"Queue full\"");
    assertThat(capped.headers().firstValue("Retry-After")).isPresent();
    assertThat(displaced.statusCode()).isEqualTo(429);
    assertThat(displaced.body()).contains("\"reason\":\"displaced\"");
    QueueSnapshot queue = work().queueSnapshot();
    assertThat(queue.critical()).isEqualTo(1);
    assertThat(queue.normal()).isEqualTo(1);
    assertThat(queue.sheddable()).isEqualTo(1);
    assertThat(queue.keys()).isEqualTo(3);
    assertThat(rejected("key_cap")).isEqualTo(1);
    assertThat(rejected("displaced")).isEqualTo(1);
    assertThat(registry
            .get(SluiceMeterBinder.QUEUED_CLASS)
            .tags("limiter", "work", "class", "critical")
            .gauge()
            .value())
        .isEqualTo(1);

    release.countDown();
    assertThat(running.join().statusCode()).isEqualTo(200);
    assertThat(greedy.join().statusCode()).isEqualTo(200);
    assertThat(shed1.join().statusCode()).isEqualTo(200);
    assertThat(critical.join().statusCode()).isEqualTo(200);
  }

  @Test
  // requests left in flight to hold the limiter's permits or queue; the test asserts on the other
  // answers
  @SuppressWarnings("FutureReturnValueIgnored")
  void aRequestWithoutTheKeyHeaderQueuesUnderUnknownAndABadClassIsNormal() throws IOException {
    start(FAIR);
    server.getAsync("/api/work");
    await().until(() -> work().snapshot().inFlight() == 1);

    CompletableFuture<HttpResponse<String>> anonymous =
        server.getAsync("/api/work", "X-Priority", "\u00e9\u00e9-not-a-class");
    await().until(() -> work().snapshot().queued() == 1);
    HttpResponse<String> secondAnonymous = server.get("/api/work");

    assertThat(secondAnonymous.statusCode()).as("both under 'unknown', cap 1").isEqualTo(429);
    assertThat(secondAnonymous.body())
        .contains("\"reason\":\"key_cap\"")
        .contains("\"key\":\"unknown\"")
        .contains("every request without one queues under the one shared key 'unknown'");
    assertThat(work().queueSnapshot().normal()).isEqualTo(1);
    release.countDown();
    assertThat(anonymous.join().statusCode()).isEqualTo(200);
  }

  @Test
  void changingTheDisciplineOnReloadKeepsEveryQueuedRequest() throws IOException {
    Path file =
        start(WORK + "path=/api/work\n" + WORK + "max-concurrency=1\n" + WORK + "max-queue=5\n");
    CompletableFuture<HttpResponse<String>> running = server.getAsync("/api/work");
    await().until(() -> work().snapshot().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> a = queue("x", "normal", 1);
    CompletableFuture<HttpResponse<String>> b = queue("x", "normal", 2);

    Files.writeString(file, FAIR);
    server.plugin.reload();

    assertThat(work().snapshot().queued()).as("nobody dropped").isEqualTo(2);
    // they queued while FIFO built no Caller: they keep the one they had, the shared unknown key
    assertThat(work().queueSnapshot().keys()).as("now a fair queue").isEqualTo(1);
    CompletableFuture<HttpResponse<String>> keyed = queue("y", "normal", 3);
    HttpResponse<String> capped = server.get("/api/work");
    assertThat(capped.body()).as("the new cap applies to newcomers").contains("key_cap");
    assertThat(work().queueSnapshot().keys()).isEqualTo(2);
    release.countDown();
    assertThat(running.join().statusCode()).isEqualTo(200);
    assertThat(a.join().statusCode()).isEqualTo(200);
    assertThat(b.join().statusCode()).isEqualTo(200);
    assertThat(keyed.join().statusCode()).isEqualTo(200);
  }
}
