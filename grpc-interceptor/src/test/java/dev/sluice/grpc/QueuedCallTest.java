package dev.sluice.grpc;

import static dev.sluice.grpc.TestServer.ECHO;
import static dev.sluice.grpc.TestServer.HOLD;
import static dev.sluice.grpc.TestServer.PING;
import static dev.sluice.grpc.TestServer.STREAM;
import static dev.sluice.grpc.TestServer.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyLimiter;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A queued call is not started and holds nothing; it leaves the queue when its client does. */
@Tag("integration")
class QueuedCallTest {

  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private TestServer start(int maxConcurrency, int maxQueue) throws Exception {
    server = new TestServer(TestServer.sluice(Map.of(
            "sluice.limiters.work.path", "/test.Work/*",
            "sluice.limiters.work.max-concurrency", Integer.toString(maxConcurrency),
            "sluice.limiters.work.max-queue", Integer.toString(maxQueue)))
        .build());
    return server;
  }

  private ConcurrencyLimiter work() {
    return server.sluice.limiter("work").orElseThrow();
  }

  @Test
  void queuedCallsAreNotStartedAndHoldNoServerThread() throws Exception {
    start(1, 200);
    server.send(HOLD);
    await().until(() -> server.started.get() == 1);
    // every thread the server and client make for a first call and answer, made now
    assertThat(server.call(PING).get(10, TimeUnit.SECONDS)).isEqualTo("pong");
    int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();

    List<Future<String>> queued = new ArrayList<>();
    for (int i = 0; i < 150; i++) {
      queued.add(server.call(ECHO));
    }
    await().until(() -> work().snapshot().queued() == 150);

    assertThat(server.started).as("handlers invoked").hasValue(1);
    // the server has two threads: were a queued call holding one, this could not be answered
    assertThat(server.call(PING).get(10, TimeUnit.SECONDS)).isEqualTo("pong");
    assertThat(ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore)
        .as("threads added while 150 calls queue")
        .isLessThanOrEqualTo(3);

    server.finishOne();
    for (Future<String> call : queued) {
      assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
    }
    assertThat(server.started).hasValue(151);
  }

  @Test
  void aClientCancelWhileQueuedLeavesTheQueueAndCountsAsCancelled() throws Exception {
    start(1, 1);
    server.send(HOLD);
    await().until(() -> server.started.get() == 1);
    Future<String> leaving = server.call(ECHO);
    await().until(() -> work().snapshot().queued() == 1);

    leaving.cancel(true);

    await().until(() -> work().snapshot().queued() == 0);
    assertThat(work().snapshot().cancelled()).isEqualTo(1);
    assertThat(work().snapshot().rejectedQueueTimeout()).isZero();
    // its place is free: the next call queues instead of being refused, and runs in turn
    Future<String> next = server.call(ECHO);
    await().until(() -> work().snapshot().queued() == 1);
    server.finishOne();
    assertThat(next.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
    assertThat(server.started).as("the cancelled call never started").hasValue(2);
  }

  @Test
  void aStreamingCallHoldsItsPermitUntilTheCallCloses() throws Exception {
    start(1, 5);
    Iterator<String> stream = ClientCalls.blockingServerStreamingCall(
        server.channel,
        STREAM,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
        "hello");
    assertThat(stream.next()).isEqualTo("first");
    Future<String> after = server.call(ECHO);
    await().until(() -> work().snapshot().queued() == 1);

    assertThat(work().snapshot().inFlight()).as("the open stream's permit").isEqualTo(1);
    assertThat(after).isNotDone();

    server.finishOne(); // the stream's last message, then its close
    assertThat(stream.next()).isEqualTo("done");
    assertThat(stream.hasNext()).isFalse();
    assertThat(after.get(10, TimeUnit.SECONDS)).isEqualTo("hello");
    await().until(() -> work().snapshot().inFlight() == 0);
  }

  @Test
  void aClientThatCancelsARunningCallGivesItsPermitBack() throws Exception {
    start(1, 5);
    ClientCall<String, String> call = server.channel.newCall(HOLD, CallOptions.DEFAULT);
    Future<String> running = ClientCalls.futureUnaryCall(call, "hello");
    await().until(() -> server.started.get() == 1);

    running.cancel(true);

    await().until(() -> work().snapshot().inFlight() == 0);
    assertThat(statusOf(server.call(ECHO)).isOk()).isTrue();
  }

  @Test
  void aMethodNoLimiterGuardsRunsAsItIs() throws Exception {
    start(1, 0);
    server.send(HOLD);
    await().until(() -> server.started.get() == 1);

    assertThat(server.call(PING).get(10, TimeUnit.SECONDS)).isEqualTo("pong");
    assertThat(statusOf(server.call(ECHO)).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void metadataNamesThePriorityClass() throws Exception {
    server = new TestServer(TestServer.sluice(Map.of(
            "sluice.limiters.work.path", "/test.Work/*",
            "sluice.limiters.work.max-concurrency", "1",
            "sluice.limiters.work.max-queue", "5",
            "sluice.limiters.work.priority-header", "X-Priority"))
        .build());
    server.send(HOLD);
    await().until(() -> server.started.get() == 1);
    Future<String> normal = server.call(HOLD);
    await().until(() -> work().snapshot().queued() == 1);
    Metadata critical = new Metadata();
    critical.put(Metadata.Key.of("x-priority", Metadata.ASCII_STRING_MARSHALLER), "critical");
    Future<String> urgent = server.call(HOLD, CallOptions.DEFAULT, critical);
    await().until(() -> work().snapshot().queued() == 2);

    server.finishOne();
    await().until(() -> server.started.get() == 2);
    server.finishOne(); // the call admitted second

    assertThat(urgent.get(10, TimeUnit.SECONDS)).as("admitted second").isEqualTo("done");
    await().until(() -> server.started.get() == 3);
    assertThat(normal).as("overtaken by the critical call").isNotDone();
    server.finishOne();
    assertThat(normal.get(10, TimeUnit.SECONDS)).isEqualTo("done");
  }
}
