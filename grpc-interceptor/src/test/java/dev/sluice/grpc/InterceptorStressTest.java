package dev.sluice.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.testing.Seeds;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Metadata;
import io.grpc.Status;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many concurrent calls, some cancelled by their client at a random moment (queued or running),
 * some with a short deadline: the running handlers never outnumber the permits, every call is
 * answered exactly once, and every permit and queue place is back at the end.
 */
@Tag("stress")
class InterceptorStressTest {

  private static final int CALLS = 400;
  private static final int LIMIT = 3;

  @Test
  void limitHoldsEveryCallIsAnsweredOnceAndEveryPermitComesBack() throws Exception {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    SluiceGrpc sluice = TestServer.sluice(Map.of(
            "sluice.limiters.work.path", "/test.Work/*",
            "sluice.limiters.work.max-concurrency", Integer.toString(LIMIT),
            "sluice.limiters.work.max-queue", "8",
            "sluice.limiters.work.queue-timeout", "200ms"))
        .build();
    ScheduledExecutorService cancels = Executors.newSingleThreadScheduledExecutor();
    AtomicIntegerArray closes = new AtomicIntegerArray(CALLS);
    Map<Status.Code, Integer> codes = new ConcurrentHashMap<>();
    try (TestServer server = new TestServer(sluice)) {
      for (int i = 0; i < CALLS; i++) {
        int n = i;
        CallOptions options = CallOptions.DEFAULT;
        int kind = random.nextInt(10);
        if (kind < 2) {
          options = options.withDeadlineAfter(1 + random.nextInt(40), TimeUnit.MILLISECONDS);
        }
        ClientCall<String, String> call = server.channel.newCall(TestServer.RUN, options);
        call.start(
            new ClientCall.Listener<>() {
              @Override
              public void onClose(Status status, Metadata trailers) {
                closes.incrementAndGet(n);
                codes.merge(status.getCode(), 1, Integer::sum);
              }
            },
            new Metadata());
        call.request(1);
        call.sendMessage(Integer.toString(random.nextInt(15)));
        call.halfClose();
        if (kind >= 2 && kind < 4) {
          var unused = cancels.schedule(
              () -> call.cancel("client left", null), random.nextInt(30), TimeUnit.MILLISECONDS);
        }
      }

      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> codes.values().stream().mapToInt(Integer::intValue).sum() == CALLS);
      ConcurrencyLimiter work = sluice.limiter("work").orElseThrow();
      await().until(() -> work.snapshot().inFlight() == 0 && work.snapshot().queued() == 0);
      await().until(() -> server.runsEnded.get() == server.started.get());

      String replay = "seed " + seed + " (-Dtest.seed=" + seed + "), answers " + codes;
      for (int i = 0; i < CALLS; i++) {
        assertThat(closes.get(i)).as("answers to call %d, %s", i, replay).isEqualTo(1);
      }
      assertThat(server.mostRunning.get()).as(replay).isBetween(1, LIMIT);
      ConcurrencySnapshot end = work.snapshot();
      assertThat(end.inFlight()).as(replay).isZero();
      assertThat(end.queued()).as(replay).isZero();
      // a call admitted as its client cancels gives the permit back unstarted
      assertThat(end.admitted())
          .as("admitted calls, at least the handlers started, " + replay)
          .isGreaterThanOrEqualTo(server.started.get());
    } finally {
      cancels.shutdownNow();
    }
  }
}
