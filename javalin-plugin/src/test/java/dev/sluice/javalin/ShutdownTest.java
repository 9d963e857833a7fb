package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.http.HttpResponse;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Shutdown ends within drain-timeout plus one second, Jetty's stop included. */
@Tag("integration")
class ShutdownTest {

  @RegisterExtension
  final LogCapture log = new LogCapture(org.slf4j.Logger.ROOT_LOGGER_NAME);

  @Test
  void aJobLongerThanTheDrainTimeoutIsCutAndCountedAndStopEndsWithinDrainPlusOneSecond() {
    CountDownLatch never = new CountDownLatch(1);
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.shutdown.drain-timeout", "1s",
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.max-concurrency", "2"))
        .build();
    TestServer server =
        TestServer.start(cfg -> cfg.properties(props).meterRegistry(registry), (app, plugin) -> {
          app.routes.get("/api/work", ctx -> {
            never.await(30, TimeUnit.SECONDS); // a job far longer than the drain timeout
            ctx.result("done");
          });
          app.routes.get("/api/slow-unlimited", ctx -> {
            never.await(30, TimeUnit.SECONDS);
            ctx.result("done");
          });
        });
    CompletableFuture<HttpResponse<String>> limited = server.getAsync("/api/work");
    CompletableFuture<HttpResponse<String>> unlimited = server.getAsync("/api/slow-unlimited");
    await().until(() -> server.plugin.limiter("work").orElseThrow().snapshot().inFlight() == 1);
    long start = System.nanoTime();
    server.app.stop();
    long tookMillis = (System.nanoTime() - start) / 1_000_000;

    System.out.println(
        "stop with drain-timeout 1s and two requests that never end took " + tookMillis + " ms");
    assertThat(tookMillis).isLessThan(2_000);
    assertThat(registry.get("sluice.shutdown.cut").counter().count()).isEqualTo(2);
    assertThat(log.events())
        .filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.ERROR))
        .isEmpty();
    // the interrupted handlers' own exceptions are the application's (Javalin logs them at WARN);
    // nothing reports the expected drain timeout as a failure
    assertThat(log.events())
        .filteredOn(e -> e.getThrowableProxy() != null)
        .allSatisfy(e -> assertThat(e.getThrowableProxy().getClassName())
            .isEqualTo(InterruptedException.class.getName()));
    assertThat(log.events())
        .extracting(ILoggingEvent::getFormattedMessage)
        .anySatisfy(m -> assertThat(m).contains("2 request(s) still running", "cut"));
    // cut: the connection closes under the request (or an error answer, never the job's 200)
    assertThat(limited
            .handle((r, e) -> e != null ? -1 : r.statusCode())
            .orTimeout(5, TimeUnit.SECONDS)
            .join())
        .isNotEqualTo(200);
    assertThat(unlimited
            .handle((r, e) -> e != null ? -1 : r.statusCode())
            .orTimeout(5, TimeUnit.SECONDS)
            .join())
        .isNotEqualTo(200);
    never.countDown();
  }
}
