package dev.sluice.concurrency;

import static dev.sluice.concurrency.ConcurrencyLimiterAdmissionTest.outcomeOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterShutdownTest {

  private final Limiters limiters = new Limiters();

  @Test
  void shutdownRejectsQueuedWaitersWithShutdown() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    limiter.acquire().join();
    CompletableFuture<Permit> waiter = limiter.acquire();

    limiter.shutdown();
    assertThat(limiter.snapshot().queued()).isZero();
    limiters.executor.runAll();

    assertThat(outcomeOf(waiter)).isEqualTo(Outcome.SHUTDOWN);
    assertThat(limiters.time.pendingTasks()).as("timeouts called off").isZero();
  }

  @Test
  void shutdownRejectsNewCallersEvenWithFreePermits() {
    ConcurrencyLimiter limiter = limiters.limiter(4, 5);

    limiter.shutdown();

    assertThat(outcomeOf(limiter.acquire())).isEqualTo(Outcome.SHUTDOWN);
    assertThat(limiter.tryAcquire()).isEmpty();
    assertThat(limiter.isShutdown()).isTrue();
    assertThat(limiter.snapshot().rejectedShutdown()).isEqualTo(2);
  }

  @Test
  void inFlightPermitsStayValidAndReleaseAfterShutdown() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 5);
    Permit permit = limiter.acquire().join();

    limiter.shutdown();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    permit.release();

    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void awaitDrainedWakesWhenTheOnlyPermitIsReleasedWithoutShutdown() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit only = limiter.acquire().join();
    AtomicBoolean drained = new AtomicBoolean();
    Thread awaiter = new Thread(() -> {
      try {
        drained.set(limiter.awaitDrained(Duration.ofMinutes(1)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    awaiter.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> awaiter.getState() == Thread.State.TIMED_WAITING);

    only.release(); // the lock-free release: nobody queued
    awaiter.join(Duration.ofSeconds(10).toMillis());

    assertThat(awaiter.isAlive()).as("woken by the release of the last permit").isFalse();
    assertThat(drained).isTrue();
    assertThat(limiter.isShutdown()).isFalse();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void releaseAfterShutdownGrantsNobody() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit permit = limiter.acquire().join();
    limiter.acquire();
    limiter.shutdown();

    permit.release();
    limiters.executor.runAll();

    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.snapshot().admitted()).isEqualTo(1);
  }

  @Test
  void awaitDrainedIsTrueAtOnceWhenNothingIsInFlight() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    limiter.shutdown();

    assertThat(limiter.awaitDrained(Duration.ZERO)).isTrue();
  }

  @Test
  void awaitDrainedIsFalseWhenAPermitIsStillHeldAtTheDeadline() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    limiter.acquire().join();
    limiter.shutdown();

    assertThat(limiter.awaitDrained(Duration.ofMillis(1))).isFalse();
  }

  @Test
  void awaitDrainedWakesWhenTheLastPermitIsReleased() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(2, 5);
    Permit first = limiter.acquire().join();
    Permit second = limiter.acquire().join();
    limiter.shutdown();
    AtomicBoolean drained = new AtomicBoolean();
    Thread awaiter = new Thread(() -> {
      try {
        drained.set(limiter.awaitDrained(Duration.ofMinutes(1)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    awaiter.start();
    // released only once it waits inside awaitDrained: released earlier, it would find nothing in
    // flight and return at once, and the wake-up would go untested
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> awaiter.getState() == Thread.State.TIMED_WAITING);

    first.release();
    second.release();
    awaiter.join(Duration.ofSeconds(10).toMillis());

    assertThat(awaiter.isAlive()).as("woken by the last release").isFalse();
    assertThat(drained).isTrue();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void shutdownIsIdempotent() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    limiter.acquire().join();
    limiter.acquire();

    limiter.shutdown();
    limiter.shutdown();
    limiters.executor.runAll();

    assertThat(limiter.snapshot().rejectedShutdown()).isEqualTo(1);
    assertThat(limiter.snapshot().shutdown()).isTrue();
  }
}
