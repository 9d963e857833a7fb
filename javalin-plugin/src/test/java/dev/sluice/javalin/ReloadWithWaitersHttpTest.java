package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A properties-file reload that changes a limiter's strategy and its queue discipline at once
 * ({@code limit=fixed} to {@code cpu}, {@code queue=fifo} to {@code fair}) while 40 callers wait
 * over HTTP: every caller gets exactly one answer, none is lost or served twice, and the queue
 * is served under the new discipline.
 */
@Tag("integration")
class ReloadWithWaitersHttpTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final int WAITERS = 40;

  @TempDir
  Path dir;

  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static void write(Path file, String limit, String queue) throws IOException {
    Files.writeString(
        file,
        String.join(
            "\n",
            "sluice.reload-interval=" + INTERVAL.toSeconds() + "s",
            "sluice.limiters.work.path=/api/work",
            "sluice.limiters.work.limit=" + limit,
            "sluice.limiters.work.max-concurrency=2",
            "sluice.limiters.work.max-queue=60",
            "sluice.limiters.work.queue-timeout=10m",
            "sluice.limiters.work.queue=" + queue,
            "sluice.limiters.work.queue-key=header:X-Host-Id",
            ""));
  }

  @Test
  void fortyWaitersEachGetOneAnswerAcrossAStrategyAndDisciplineChange() throws Exception {
    Path file = dir.resolve("sluice.properties");
    write(file, "fixed", "fifo");
    VirtualTime time = new VirtualTime();
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger served = new AtomicInteger();
    SluiceProperties props =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    server = TestServer.start(
        cfg -> cfg.properties(props).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          served.incrementAndGet();
          release.await(60, TimeUnit.SECONDS);
          ctx.result("done");
        }));

    List<CompletableFuture<HttpResponse<String>>> calls = new ArrayList<>();
    for (int i = 0; i < 2 + WAITERS; i++) {
      calls.add(server.getAsync("/api/work", "X-Host-Id", "host-" + (i % 5)));
    }
    await().until(() -> snapshot().queued() == WAITERS && snapshot().inFlight() == 2);

    write(file, "cpu", "fair");
    time.advance(INTERVAL);
    assertThat(server.plugin.statusJson())
        .contains("\"limitKind\":\"cpu\"")
        .contains("\"queueKind\":\"fair\"");
    assertThat(snapshot().queued()).as("the waiters moved to the new queue").isEqualTo(WAITERS);

    release.countDown();
    List<Integer> statuses = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> call : calls) {
      statuses.add(call.get(60, TimeUnit.SECONDS).statusCode());
    }
    assertThat(statuses).hasSize(2 + WAITERS).containsOnly(200);
    assertThat(served).as("each admitted once").hasValue(2 + WAITERS);
    await().until(() -> snapshot().inFlight() == 0 && snapshot().queued() == 0);
  }

  private dev.sluice.concurrency.ConcurrencySnapshot snapshot() {
    return server.plugin.limiter("work").orElseThrow().snapshot();
  }
}
