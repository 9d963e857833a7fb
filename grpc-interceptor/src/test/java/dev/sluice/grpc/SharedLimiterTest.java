package dev.sluice.grpc;

import static dev.sluice.grpc.TestServer.HOLD;
import static dev.sluice.grpc.TestServer.PING;
import static dev.sluice.grpc.TestServer.pushback;
import static dev.sluice.grpc.TestServer.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.time.VirtualTime;
import io.grpc.CallOptions;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A limiter built and owned outside the door (as the Javalin plugin owns its own), shared by a
 * real gRPC server over Netty and by direct {@code acquire} calls standing for the other door: one
 * limit and one queue for both, and the door's shutdown leaves the limiter to its owner.
 */
@Tag("integration")
class SharedLimiterTest {

  private static final Metadata.Key<String> HOST =
      Metadata.Key.of("x-host-id", Metadata.ASCII_STRING_MARSHALLER);

  private final VirtualTime time = new VirtualTime();
  private final ExecutorService ownerThreads = Executors.newCachedThreadPool();
  private ConcurrencyLimiter limiter;
  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
    if (limiter != null) {
      limiter.shutdown();
    }
    ownerThreads.shutdownNow();
  }

  /**
   * The owner's limiter: {@code maxConcurrency} permits, 3 places, fair by X-Host-Id with one
   * place per host, 10 s in the queue; its own path is the other door's.
   */
  private static LimiterConfig config(int maxConcurrency) {
    return LimiterConfig.custom("work")
        .path("/api/work")
        .maxConcurrency(maxConcurrency)
        .maxQueue(3)
        .queueTimeout(Duration.ofSeconds(10))
        .set(LimiterKeys.QUEUE, LimiterKeys.QueueKind.FAIR)
        .set(LimiterKeys.QUEUE_KEY, "header:X-Host-Id")
        .set(LimiterKeys.MAX_QUEUE_PER_KEY, 1)
        .build();
  }

  private LimiterConfig owned(int maxConcurrency) {
    LimiterConfig config = config(maxConcurrency);
    limiter = ConcurrencyLimiter.builder("work")
        .spec(config.spec())
        .clock(time)
        .scheduler(time)
        .executor(ownerThreads)
        .build();
    return config;
  }

  private TestServer start(LimiterConfig config) throws Exception {
    server = new TestServer(
        TestServer.sluice(Map.of()).shared("/test.Work/*", config, limiter).build());
    return server;
  }

  private Future<String> call(String host) {
    Metadata headers = new Metadata();
    headers.put(HOST, host);
    return server.call(HOLD, CallOptions.DEFAULT, headers);
  }

  private void awaitLimiter(int inFlight, int queued) {
    await()
        .until(() ->
            limiter.snapshot().inFlight() == inFlight && limiter.snapshot().queued() == queued);
  }

  @Test
  void aCallAndADirectAcquireWaitInOneQueueForOneLimitInArrivalOrder() throws Exception {
    start(owned(1));
    Permit other = limiter.acquireIfFree();
    assertThat(other).as("the other door holds the only permit").isNotNull();

    Future<String> grpc = call("host-a");
    awaitLimiter(1, 1);
    CompletableFuture<Permit> direct = limiter.acquire(Caller.of("host-b"));
    awaitLimiter(1, 2);
    assertThat(server.started).as("a queued call is not started").hasValue(0);

    other.release();
    // the call came first: it gets the permit, the direct acquire still waits
    await().until(() -> server.started.get() == 1);
    assertThat(direct).isNotDone();
    awaitLimiter(1, 1);

    server.finishOne();
    assertThat(statusOf(grpc).isOk()).isTrue();
    Permit second = direct.get(10, TimeUnit.SECONDS);
    // and now a call waits for the direct holder's permit
    Future<String> next = call("host-c");
    awaitLimiter(1, 1);
    assertThat(server.started).hasValue(1);
    second.release();
    await().until(() -> server.started.get() == 2);
    server.finishOne();
    assertThat(statusOf(next).isOk()).isTrue();
    assertThat(limiter.snapshot().admitted()).isEqualTo(4);
  }

  @Test
  void theSharedConfigsQueueKeyIsReadFromMetadataForCallsAndDirectCallersAlike() throws Exception {
    start(owned(1));
    Permit other = limiter.acquireIfFree();
    Future<String> first = call("greedy");
    awaitLimiter(1, 1);

    Status capped = statusOf(call("greedy"));
    assertThat(capped.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(capped.getDescription()).startsWith("key_cap:").contains("'greedy'");
    assertThat(Long.parseLong(pushback(call("greedy")))).isGreaterThanOrEqualTo(1000);
    // the other door's caller of the same key finds the place taken too
    CompletableFuture<Permit> direct = limiter.acquire(Caller.of("greedy"));
    assertThatThrownBy(() -> direct.get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(ConcurrencyRejectedException.class);

    other.release();
    await().until(() -> server.started.get() == 1);
    server.finishOne();
    assertThat(statusOf(first).isOk()).isTrue();
  }

  @Test
  void aCallWaitsNoLongerThanTheSharedConfigsQueueTimeout() throws Exception {
    start(owned(1));
    Permit other = limiter.acquireIfFree();
    Future<String> queued = call("host-a");
    awaitLimiter(1, 1);

    time.advance(Duration.ofSeconds(10));

    Status status = statusOf(queued);
    assertThat(status.getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(status.getDescription()).startsWith("queue_timeout:");
    assertThat(server.started).hasValue(0);
    other.release();
  }

  @Test
  void shuttingTheDoorDownRefusesItsCallsButLeavesTheLimiterToItsOwner() throws Exception {
    start(owned(2));
    Permit other = limiter.acquireIfFree();
    Future<String> running = call("host-a");
    await().until(() -> server.started.get() == 1);
    Future<String> queued = call("host-b");
    CompletableFuture<Permit> direct = limiter.acquire(Caller.of("host-c"));
    awaitLimiter(2, 2);

    server.sluice.shutdown();
    Future<String> late = call("host-d");

    for (Future<String> refused : java.util.List.of(queued, late)) {
      Status status = statusOf(refused);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).startsWith("shutting_down: ");
      assertThat(Long.parseLong(pushback(refused))).isGreaterThanOrEqualTo(1000);
    }
    // an unguarded method goes on, as with the door's own limiters
    assertThat(statusOf(server.call(PING)).isOk()).isTrue();
    // the call that was running still holds its permit: the door has not drained
    assertThat(server.sluice.awaitDrained(Duration.ZERO)).isFalse();
    assertThat(limiter.snapshot().shutdown()).isFalse();

    server.finishOne();
    assertThat(statusOf(running).isOk()).isTrue();
    // this door's calls are over; the other door's permit is not waited for
    assertThat(server.sluice.awaitDrained(Duration.ofSeconds(10))).isTrue();
    // the other door still admits: its queued caller takes the freed permit, a new one its turn
    Permit directPermit = direct.get(10, TimeUnit.SECONDS);
    other.release();
    Permit fresh = limiter.acquire(Caller.of("host-e")).get(10, TimeUnit.SECONDS);
    assertThat(limiter.snapshot().inFlight()).isEqualTo(2);
    directPermit.release();
    fresh.release();
    server.close();
    server = null;
    assertThat(limiter.snapshot().shutdown()).as("closed door, owner's limiter").isFalse();
    assertThat(limiter.acquireIfFree()).isNotNull();
  }

  @Test
  void aConfigOfAnotherLimiterIsRefused() {
    ConcurrencyLimiter other = ConcurrencyLimiter.builder("other").build();
    try {
      assertThatThrownBy(() -> SluiceGrpc.builder().shared("/test.Work/*", config(1), other))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'other'")
          .hasMessageContaining("'work'");
    } finally {
      other.shutdown();
    }
  }

  @Test
  void aMalformedPatternIsRefusedNamingIt() {
    owned(1);
    for (String bad : java.util.List.of(
        "test.Work/*", "/test.Work/**/Hold", "/test.Work/Ho*", "/test.Work", "/a/b/c")) {
      assertThatThrownBy(() -> SluiceGrpc.builder().shared(bad, config(1), limiter))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("gRPC method pattern '" + bad + "'");
    }
  }

  @Test
  void thePatternSharedTwiceIsRefused() {
    owned(1);
    SluiceGrpc.Builder builder = SluiceGrpc.builder().shared("/test.Work/*", config(1), limiter);
    assertThatThrownBy(() -> builder.shared("/test.Work//*", config(1), limiter))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("shared twice");
    // the same limiter on another pattern is fine; another limiter of its name is not
    builder.shared("/test.Other/*", config(1), limiter);
    ConcurrencyLimiter twin = ConcurrencyLimiter.builder("work").build();
    try {
      assertThatThrownBy(() -> builder.shared("/test.Third/*", config(1), twin))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("another limiter named 'work'");
    } finally {
      twin.shutdown();
    }
  }

  @Test
  void anOwnLimiterWithTheSharedOnesNameOrPatternFailsTheBuildNamingTheKey() {
    owned(1);
    assertThatThrownBy(() -> TestServer.sluice(Map.of("sluice.limiters.work.path", "/test.Own/*"))
            .shared("/test.Work/*", config(1), limiter)
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.path")
        .hasMessageContaining("is shared with this door");
    assertThatThrownBy(() -> TestServer.sluice(Map.of("sluice.limiters.own.path", "/test.Work/*"))
            .shared("/test.Work/*", config(1), limiter)
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.own.path='/test.Work/*'")
        .hasMessageContaining("guards '/test.Work/*' already");
    assertThat(limiter.snapshot().shutdown()).isFalse();
  }
}
