package dev.sluice.grpc;

import static dev.sluice.grpc.TestServer.ECHO;
import static dev.sluice.grpc.TestServer.HOLD;
import static dev.sluice.grpc.TestServer.pushback;
import static dev.sluice.grpc.TestServer.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.time.VirtualTime;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Each row of the status table that applies to limiters, over a real server and channel. */
@Tag("integration")
class StatusTableTest {

  private static final String P = "sluice.limiters.work.";
  private final VirtualTime time = new VirtualTime();
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private TestServer start(Map<String, String> limiter) throws Exception {
    Map<String, String> p = new HashMap<>();
    p.put(P + "path", "/test.Work/*");
    p.put(P + "max-concurrency", "1");
    limiter.forEach((k, v) -> p.put(P + k, v));
    server = new TestServer(TestServer.sluice(p).clock(time).scheduler(time).build());
    return server;
  }

  private ConcurrencyLimiter work() {
    return server.sluice.limiter("work").orElseThrow();
  }

  /** One call holds the only permit, its handler running. */
  private void holdThePermit() {
    server.send(HOLD);
    await().until(() -> server.started.get() == 1);
  }

  private static long pushbackMillis(Future<?> call) throws InterruptedException {
    String raw = pushback(call);
    assertThat(raw).as("grpc-retry-pushback-ms").isNotNull();
    return Long.parseLong(raw);
  }

  @Test
  void aFullQueueIsResourceExhaustedWithPushbackAndTheReason() throws Exception {
    start(Map.of("max-queue", "0"));
    holdThePermit();

    Future<String> refused = server.call(ECHO);

    Status status = statusOf(refused);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription())
        .isEqualTo("queue_full: Every permit of limiter 'work' is taken and its queue is full.");
    assertThat(pushbackMillis(refused)).isGreaterThanOrEqualTo(1000).matches(ms -> ms % 1000 == 0);
    assertThat(server.started).hasValue(1);
  }

  @Test
  void aKeyAtItsCapIsResourceExhaustedNamingTheKeyFromMetadata() throws Exception {
    start(Map.of(
        "max-queue",
        "10",
        "queue",
        "fair",
        "queue-key",
        "header:X-Tenant",
        "max-queue-per-key",
        "1"));
    holdThePermit();
    Metadata tenantB = new Metadata();
    tenantB.put(Metadata.Key.of("x-tenant", Metadata.ASCII_STRING_MARSHALLER), "b");
    server.send(ECHO, CallOptions.DEFAULT, tenantB);
    await().until(() -> work().snapshot().queued() == 1);

    Future<String> refused = server.call(ECHO, CallOptions.DEFAULT, tenantB);

    Status status = statusOf(refused);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription())
        .startsWith("key_cap: Requests queued under key 'b' (header:X-Tenant)");
    assertThat(pushbackMillis(refused)).isGreaterThanOrEqualTo(1000);
  }

  @Test
  void aPredictedWaitPastTheQueueTimeoutIsResourceExhausted() throws Exception {
    start(Map.of(
        "max-queue", "10",
        "queue-timeout", "2s",
        "reject-early", "true",
        "expected-service-time", "10s"));
    holdThePermit();

    Future<String> refused = server.call(ECHO);

    Status status = statusOf(refused);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).startsWith("predicted_wait: ");
    assertThat(pushbackMillis(refused)).isGreaterThanOrEqualTo(1000);
  }

  @Test
  void aCallerDeadlineSoonerThanThePredictedWaitIsDeadlineExceededAtOnce() throws Exception {
    start(Map.of(
        "max-queue", "10",
        "queue-timeout", "120s",
        "reject-early", "true",
        "expected-service-time", "30s"));
    holdThePermit();

    Future<String> refused = server.call(
        ECHO, CallOptions.DEFAULT.withDeadlineAfter(3, TimeUnit.SECONDS), new Metadata());
    Future<String> patient = server.call(ECHO);

    // the server's own words: the client's deadline did not fire, the limiter answered
    Status status = statusOf(refused);
    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(status.getDescription())
        .isEqualTo("deadline_exceeded: The call's deadline is sooner than the predicted wait for"
            + " limiter 'work'.");
    assertThat(pushback(refused)).isNull();
    await().until(() -> work().snapshot().queued() == 1);
    assertThat(patient).isNotDone();
    assertThat(work().snapshot().rejectedPredictedWait()).isEqualTo(1);
  }

  @Test
  void waitingPastTheQueueTimeoutIsDeadlineExceeded() throws Exception {
    start(Map.of("max-queue", "10", "queue-timeout", "1s"));
    holdThePermit();
    Future<String> queued = server.call(ECHO);
    await().until(() -> work().snapshot().queued() == 1);

    time.advance(Duration.ofSeconds(2));

    Status status = statusOf(queued);
    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(status.getDescription())
        .isEqualTo("queue_timeout: The request waited for limiter 'work' longer than its queue"
            + " timeout.");
    assertThat(pushback(queued)).isNull();
    assertThat(work().snapshot().rejectedQueueTimeout()).isEqualTo(1);
    assertThat(server.started).hasValue(1);
  }

  @Test
  void shuttingDownIsUnavailableWithPushbackForQueuedAndNewCallsWhileRunningOnesFinish()
      throws Exception {
    start(Map.of("max-queue", "10"));
    Future<String> running = server.call(HOLD);
    await().until(() -> server.started.get() == 1);
    Future<String> queued = server.call(ECHO);
    await().until(() -> work().snapshot().queued() == 1);

    server.sluice.shutdown();
    Future<String> late = server.call(ECHO);

    for (Future<String> refused : java.util.List.of(queued, late)) {
      Status status = statusOf(refused);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).startsWith("shutting_down: ");
      assertThat(pushbackMillis(refused)).isGreaterThanOrEqualTo(1000);
    }
    server.finishOne();
    assertThat(statusOf(running).isOk()).isTrue();
    assertThat(server.sluice.awaitDrained(Duration.ofSeconds(10))).isTrue();
    assertThat(server.started).hasValue(1);
  }
}
