package dev.sluice.concurrency;

import static dev.sluice.concurrency.ConcurrencyLimiterAdmissionTest.outcomeOf;
import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterShutdownTest {

  private final Limiters limiters = new Limiters();

  @Test
  void shutdownRejectsQueuedWaitersWithShutdown() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    admitted(limiter.acquire());
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
    Permit permit = admitted(limiter.acquire());

    limiter.shutdown();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    permit.release();

    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void awaitDrainedWakesWhenTheOnlyPermitIsReleasedWithoutShutdown() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit only = admitted(limiter.acquire());
    DrainWaiter drain = DrainWaiter.waitingIn(limiter);

    only.release(); // the lock-free release: nobody queued

    assertThat(drain.result()).as("woken by the release of the last permit").isTrue();
    assertThat(limiter.isShutdown()).isFalse();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void releaseAfterShutdownGrantsNobody() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit permit = admitted(limiter.acquire());
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
    admitted(limiter.acquire());
    limiter.shutdown();

    assertThat(limiter.awaitDrained(Duration.ofMillis(1))).isFalse();
  }

  @Test
  void awaitDrainedWakesWhenTheLastPermitIsReleased() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(2, 5);
    Permit first = admitted(limiter.acquire());
    Permit second = admitted(limiter.acquire());
    limiter.shutdown();
    DrainWaiter drain = DrainWaiter.waitingIn(limiter);

    first.release();
    second.release();

    assertThat(drain.result()).as("woken by the last release").isTrue();
  }

  @Test
  void awaitDrainedWakesWhenTheLastPermitGoesBackThroughTheQueue() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit only = admitted(limiter.acquire());
    CompletableFuture<Permit> queued = limiter.acquire();
    DrainWaiter drain = DrainWaiter.waitingIn(limiter);

    only.release(); // to the queued caller
    limiters.executor.runAll();
    assertThat(queued).isCompleted();
    queued.join().release();

    assertThat(drain.result()).as("woken by the last release").isTrue();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void shutdownIsIdempotent() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    admitted(limiter.acquire());
    limiter.acquire();

    limiter.shutdown();
    limiter.shutdown();
    limiters.executor.runAll();

    assertThat(limiter.snapshot().rejectedShutdown()).isEqualTo(1);
    assertThat(limiter.snapshot().shutdown()).isTrue();
  }
}
