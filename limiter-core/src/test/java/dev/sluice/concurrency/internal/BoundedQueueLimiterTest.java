package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.DrainWaiter;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Permit;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The engine's own moves, each checked without waiting on anything that may never come: a caller
 * that cannot run joins the queue in the call and a release grants it, a costly caller takes its
 * units at once when they are free, and awaitDrained wakes when the last permit is back.
 */
class BoundedQueueLimiterTest {

  private final Limiters limiters = new Limiters();

  @Test
  void aCallerThatCannotRunJoinsTheQueueInTheCallAndAReleaseGrantsIt() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit running = admitted(limiter.acquire());

    CompletableFuture<Permit> waiting = limiter.acquire();

    assertThat(waiting).isNotDone();
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
    running.release();
    limiters.executor.runAll();
    assertThat(waiting).isCompleted();
    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void aCostlyCallerTakesItsUnitsAtOnceWhenTheyAreFree() {
    ConcurrencyLimiter limiter = limiters.limiter(4, 5);

    Permit costly = admitted(limiter.acquire(Caller.DEFAULT.withCost(3)));

    assertThat(limiter.snapshot().inFlight()).isEqualTo(3);
    Permit last = admitted(limiter.acquire()); // the fourth unit
    costly.release();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    last.release();
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void awaitDrainedWithTimeLeftWaitsForTheLastPermitAndWakesWhenItIsBack()
      throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit only = admitted(limiter.acquire());
    DrainWaiter drain = DrainWaiter.waitingIn(limiter);

    only.release();

    assertThat(drain.result()).isTrue();
  }
}
