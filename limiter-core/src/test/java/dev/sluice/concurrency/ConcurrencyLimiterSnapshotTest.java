package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterSnapshotTest {

  private final Limiters limiters = new Limiters();

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void countsEveryOutcomeAndGauge() {
    ConcurrencyLimiter limiter = limiters.builder(1, 2, Duration.ofSeconds(1)).build();
    Permit held = admitted(limiter.acquire()); // admitted
    CompletableFuture<Permit> timesOut = limiter.acquire(); // queued
    limiters.time.advance(Duration.ofMillis(100));
    CompletableFuture<Permit> cancelled = limiter.acquire(); // queued
    limiter.acquire(); // QUEUE_FULL
    cancelled.cancel(false);
    limiters.time.advance(Duration.ofMillis(900)); // timesOut expires after 1 s
    limiters.executor.runAll();

    ConcurrencySnapshot snapshot = limiter.snapshot();
    assertThat(timesOut).isCompletedExceptionally();
    assertThat(snapshot.inFlight()).isEqualTo(1);
    assertThat(snapshot.queued()).isZero();
    assertThat(snapshot.admitted()).isEqualTo(1);
    assertThat(snapshot.queuedTotal()).isEqualTo(2);
    assertThat(snapshot.rejectedQueueFull()).isEqualTo(1);
    assertThat(snapshot.rejectedQueueTimeout()).isEqualTo(1);
    assertThat(snapshot.cancelled()).isEqualTo(1);
    assertThat(snapshot.rejectedShutdown()).isZero();
    assertThat(snapshot.queueWaitCount()).isEqualTo(2);
    assertThat(snapshot.queueWaitTotalNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(snapshot.queueWaitMaxNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
    held.release();
  }

  @Test
  void measuresServiceTime() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 2);
    Permit a = admitted(limiter.acquire());
    Permit b = admitted(limiter.acquire());
    limiters.time.advance(Duration.ofMillis(100));
    a.release();
    limiters.time.advance(Duration.ofMillis(200));
    b.release();

    ConcurrencySnapshot snapshot = limiter.snapshot();
    assertThat(snapshot.serviceCount()).isEqualTo(2);
    assertThat(snapshot.serviceTotalNanos()).isEqualTo(Duration.ofMillis(400).toNanos());
    assertThat(snapshot.serviceMaxNanos()).isEqualTo(Duration.ofMillis(300).toNanos());
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void retryAfterIsMeanServiceTimeTimesQueuedAheadPlusOneOverLimit() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 3);
    Permit a = admitted(limiter.acquire());
    limiters.time.advance(Duration.ofMillis(400));
    a.release(); // mean service time 400 ms
    admitted(limiter.acquire());
    admitted(limiter.acquire());
    limiter.acquire();
    limiter.acquire();
    limiter.acquire(); // 3 queued: full

    ConcurrencyRejectedException rejection = rejectionOf(limiter.acquire());

    // 400 ms x (3 + 1) / 2
    assertThat(rejection.retryAfterNanos()).isEqualTo(Duration.ofMillis(800).toNanos());
  }

  @Test
  void retryAfterFallsBackToOneSecondPerPermitBeforeAnyServiceTimeIsKnown() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    admitted(limiter.acquire());

    assertThat(rejectionOf(limiter.acquire()).retryAfterNanos())
        .isEqualTo(Duration.ofSeconds(1).toNanos());
  }

  @Test
  void retryAfterFallbackNeverExceedsTheQueueTimeoutPerPermit() {
    ConcurrencyLimiter limiter = limiters.builder(1, 0, Duration.ofMillis(200)).build();
    admitted(limiter.acquire());

    assertThat(rejectionOf(limiter.acquire()).retryAfterNanos())
        .isEqualTo(Duration.ofMillis(200).toNanos());
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void listenerHearsEveryEvent() {
    List<String> events = new CopyOnWriteArrayList<>();
    ConcurrencyListener listener = new ConcurrencyListener() {
      @Override
      public void onAdmitted(String limiter, long queuedNanos) {
        events.add("admitted " + limiter + " " + queuedNanos);
      }

      @Override
      public void onQueued(String limiter) {
        events.add("queued");
      }

      @Override
      public void onRejected(String limiter, Outcome outcome, long waitedNanos) {
        events.add(outcome + " " + waitedNanos);
      }

      @Override
      public void onReleased(String limiter, long serviceNanos) {
        events.add("released " + serviceNanos);
      }
    };
    ConcurrencyLimiter limiter =
        limiters.builder(1, 1, Duration.ofSeconds(1)).listener(listener).build();

    Permit held = admitted(limiter.acquire());
    limiter.acquire();
    limiter.acquire();
    limiters.time.advance(Duration.ofNanos(7));
    held.release();

    assertThat(events)
        .containsExactly(
            "admitted test 0", "queued", "QUEUE_FULL 0", "released 7", "admitted test 7");
  }

  @Test
  void throwingListenerLosesNoPermit() {
    ConcurrencyListener broken = new ConcurrencyListener() {
      @Override
      public void onReleased(String limiter, long serviceNanos) {
        throw new IllegalStateException("metrics down");
      }

      @Override
      public void onAdmitted(String limiter, long queuedNanos) {
        throw new IllegalStateException("metrics down");
      }
    };
    ConcurrencyLimiter limiter =
        limiters.builder(1, 1, Duration.ofSeconds(1)).listener(broken).build();

    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();
    held.release();
    limiters.executor.runAll();

    assertThat(waiter).isCompleted();
    waiter.join().release();
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  private static ConcurrencyRejectedException rejectionOf(CompletableFuture<Permit> future) {
    assertThat(future).as("refused in the call").isCompletedExceptionally();
    try {
      future.join();
    } catch (CompletionException e) {
      return (ConcurrencyRejectedException) e.getCause();
    }
    throw new AssertionError("not rejected");
  }

  @Test
  void theSnapshotsStringShowsWhatRunsWhatWaitsAndTheSpec() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 5);
    admitted(limiter.acquire()).release();
    admitted(limiter.acquire());

    assertThat(limiter.snapshot())
        .hasToString("ConcurrencySnapshot[test, limit=2, inFlight=1, queued=0, admitted=2, spec="
            + limiter.spec() + "]");
  }
}
