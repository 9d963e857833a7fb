package dev.sluice.concurrency;

import static dev.sluice.concurrency.ConcurrencyLimiterAdmissionTest.outcomeOf;
import static dev.sluice.concurrency.Limiters.admitted;
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
    Drain drain = Drain.waitingIn(limiter);

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
    Drain drain = Drain.waitingIn(limiter);

    first.release();
    second.release();

    assertThat(drain.result()).as("woken by the last release").isTrue();
  }

  @Test
  void awaitDrainedWakesWhenTheLastPermitGoesBackThroughTheQueue() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit only = admitted(limiter.acquire());
    CompletableFuture<Permit> queued = limiter.acquire();
    Drain drain = Drain.waitingIn(limiter);

    only.release(); // to the queued caller
    limiters.executor.runAll();
    assertThat(queued).isCompleted();
    queued.join().release();

    assertThat(drain.result()).as("woken by the last release").isTrue();
  }

  /**
   * A thread in {@link ConcurrencyLimiter#awaitDrained}, which gives up after {@link #BOUND}: a
   * wake-up that never comes fails the test then, instead of hanging it. The permits are released
   * within milliseconds of its wait, and a wake-up that comes late still finds them released.
   */
  private static final class Drain {
    static final Duration BOUND = Duration.ofSeconds(1);

    final Thread thread;
    final AtomicBoolean drained = new AtomicBoolean();

    private Drain(ConcurrencyLimiter limiter) {
      thread = new Thread(() -> {
        try {
          drained.set(limiter.awaitDrained(BOUND));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
    }

    /**
     * Started, and back once it waits inside awaitDrained: released earlier, it would find nothing
     * in flight and return at once, and the wake-up would go untested.
     */
    static Drain waitingIn(ConcurrencyLimiter limiter) {
      Drain drain = new Drain(limiter);
      drain.thread.start();
      await()
          .atMost(BOUND)
          .pollInterval(Duration.ofMillis(1))
          .until(() ->
              drain.thread.getState() == Thread.State.TIMED_WAITING || !drain.thread.isAlive());
      assertThat(drain.thread.isAlive()).as("waiting for the permits in flight").isTrue();
      return drain;
    }

    /** What awaitDrained returned; false also when it was not back in time (a lock kept). */
    boolean result() throws InterruptedException {
      thread.join(BOUND.multipliedBy(2).toMillis());
      return !thread.isAlive() && drained.get();
    }
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
