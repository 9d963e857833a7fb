package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterCancellationTest {

  private final Limiters limiters = new Limiters();

  @Test
  void cancelledWaiterLeavesTheQueueAtOnce() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    assertThat(waiter.cancel(true)).isTrue();

    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().cancelled()).isEqualTo(1);
    assertThat(limiters.time.pendingTasks()).as("its timeout is called off").isZero();
  }

  @Test
  void cancelledWaiterFreesItsQueueSlot() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 1);
    admitted(limiter.acquire());
    limiter.acquire().cancel(false);

    assertThat(limiter.acquire()).isNotDone();
  }

  @Test
  void cancelledWaiterIsSkippedAndTheNextOneGetsThePermit() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> gone = limiter.acquire();
    CompletableFuture<Permit> next = limiter.acquire();
    gone.cancel(false);

    held.release();
    limiters.executor.runAll();

    assertThat(next).isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void cancelAfterGrantButBeforeCompletionHandsThePermitOn() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> granted = limiter.acquire();
    CompletableFuture<Permit> next = limiter.acquire();

    held.release(); // grants 'granted'; its completion waits on the executor
    assertThat(granted.cancel(false))
        .as("the caller still sees a pending future")
        .isTrue();
    limiters.executor.runAll();

    assertThat(next).as("the permit was not lost with the cancelled caller").isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void cancelAfterGrantWithNobodyElseWaitingReturnsThePermit() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> granted = limiter.acquire();

    held.release();
    granted.cancel(false);
    limiters.executor.runAll();

    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.tryAcquire()).isPresent();
  }

  @Test
  void timeoutThatLosesToAGrantDoesNothing() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofSeconds(1)).build();
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    limiters.time.advance(Duration.ofMillis(999));
    held.release(); // granted just before its deadline
    limiters.time.advance(Duration.ofMillis(5));
    limiters.executor.runAll();

    assertThat(waiter).isCompleted();
    assertThat(limiter.snapshot().rejectedQueueTimeout()).isZero();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void grantThatLosesToATimeoutGoesToTheNextWaiter() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofSeconds(1)).build();
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> expired = limiter.acquire();
    limiters.time.advance(Duration.ofMillis(10));
    CompletableFuture<Permit> next = limiter.acquire();

    limiters.time.advance(Duration.ofMillis(990)); // first deadline fires
    held.release();
    limiters.executor.runAll();

    assertThat(ConcurrencyLimiterAdmissionTest.outcomeOf(expired)).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(next).isCompleted();
  }

  @Test
  void callerSideTimeoutOnTheFutureCountsAsCancellation() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    waiter.completeExceptionally(new java.util.concurrent.TimeoutException());

    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().cancelled()).isEqualTo(1);
  }

  @Test
  void aWaiterTheCallerCompletesWithAValueLeavesTheQueueAsCancelled() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit running = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    assertThat(waiter.complete(null)).isTrue(); // e.g. a fallback value supplied by the caller

    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().cancelled()).isEqualTo(1);
    running.release();
    limiters.executor.runAll();
    assertThat(limiter.snapshot().inFlight())
        .as("nobody was granted the freed permit")
        .isZero();
  }

  @Test
  void cancellingADerivedStageDoesNotTouchTheQueue() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    waiter.thenApply(p -> p).orTimeout(1, TimeUnit.DAYS).cancel(false);

    assertThat(limiter.snapshot().queued()).isEqualTo(1);
    assertThat(waiter).isNotDone();
  }
}
