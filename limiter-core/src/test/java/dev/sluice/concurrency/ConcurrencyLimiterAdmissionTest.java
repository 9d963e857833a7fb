package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterAdmissionTest {

  private final Limiters limiters = new Limiters();

  @Test
  void freePermitAndNobodyWaitingIsAdmittedAtOnce() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 2);

    CompletableFuture<Permit> first = limiter.acquire();
    CompletableFuture<Permit> second = limiter.acquire();

    assertThat(first).isCompleted();
    assertThat(second).isCompleted();
    assertThat(first.join().queuedNanos()).isZero();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(2);
    assertThat(limiters.executor.pending())
        .as("no dispatch for an immediate admission")
        .isZero();
  }

  @Test
  void acquireIfFreeAdmitsWithoutAFutureAndRefusesWithoutCountingWhenFullOrWaitedOn() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 2);

    Permit first = limiter.acquireIfFree();
    assertThat(first).isNotNull();
    assertThat(limiter.limit()).isEqualTo(1);
    assertThat(limiter.acquireIfFree()).as("no permit free").isNull();
    CompletableFuture<Permit> waiting = limiter.acquire();
    first.release();
    assertThat(limiter.acquireIfFree())
        .as("a waiter is owed the permit: no barging")
        .isNull();

    limiters.executor.runAll();
    assertThat(waiting).isCompleted();
    assertThat(limiter.snapshot().rejectedQueueFull())
        .as("a null answer counts nothing")
        .isZero();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void callerBeyondTheLimitWaitsWithoutAThread() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 2);
    admitted(limiter.acquire());

    CompletableFuture<Permit> waiting = limiter.acquire();

    assertThat(waiting).isNotDone();
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
  }

  @Test
  void waitersAreAdmittedInArrivalOrder() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 10);
    Permit held = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      waiters.add(limiter.acquire());
    }

    List<Integer> order = new ArrayList<>();
    Permit current = held;
    for (int round = 0; round < 5; round++) {
      current.release();
      limiters.executor.runAll();
      for (int i = 0; i < waiters.size(); i++) {
        if (waiters.get(i).isDone() && !order.contains(i)) {
          order.add(i);
          current = waiters.get(i).join();
        }
      }
    }

    assertThat(order).containsExactly(0, 1, 2, 3, 4);
  }

  @Test
  void newcomerDoesNotOvertakeAWaiterWhenAPermitFrees() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 10);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    held.release();
    CompletableFuture<Permit> newcomer = limiter.acquire();
    limiters.executor.runAll();

    assertThat(waiter).isCompleted();
    assertThat(newcomer).isNotDone();
  }

  @Test
  void tryAcquireDoesNotOvertakeAWaiterWhenAPermitFrees() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 10);
    Permit held = admitted(limiter.acquire());
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    held.release();

    assertThat(limiter.tryAcquire()).isEmpty();
    limiters.executor.runAll();
    assertThat(waiter).isCompleted();
  }

  @Test
  void tryAcquireAdmitsWhenFreeAndNeverQueues() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 10);

    assertThat(limiter.tryAcquire()).isPresent();
    assertThat(limiter.tryAcquire()).isEmpty();
    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().rejectedQueueFull()).isEqualTo(1);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void fullQueueRejectsAtOnceWithQueueFull() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 1);
    admitted(limiter.acquire());
    limiter.acquire();

    CompletableFuture<Permit> rejected = limiter.acquire();

    assertThat(rejected).isCompletedExceptionally();
    assertThat(outcomeOf(rejected)).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void rejectionReachesTheCallbackUnwrapped() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    admitted(limiter.acquire());
    List<Throwable> failures = new ArrayList<>();

    limiter.acquire().whenComplete((permit, failure) -> failures.add(failure));

    assertThat(failures)
        .singleElement()
        .isInstanceOfSatisfying(
            ConcurrencyRejectedException.class,
            e -> assertThat(e.outcome()).isEqualTo(Outcome.QUEUE_FULL));
  }

  @Test
  void zeroQueueRejectsEveryoneBeyondTheLimit() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    admitted(limiter.acquire());

    assertThat(outcomeOf(limiter.acquire())).isEqualTo(Outcome.QUEUE_FULL);
  }

  @Test
  void waiterPastQueueTimeoutIsRejectedWithQueueTimeoutAndLeavesTheQueue() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofMillis(500)).build();
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    limiters.time.advance(Duration.ofMillis(499));
    limiters.executor.runAll();
    assertThat(waiter).isNotDone();

    limiters.time.advance(Duration.ofMillis(1));
    assertThat(limiter.snapshot().queued())
        .as("removed when the deadline fires")
        .isZero();
    limiters.executor.runAll();
    assertThat(outcomeOf(waiter)).isEqualTo(Outcome.QUEUE_TIMEOUT);
  }

  @Test
  void eachWaiterHasItsOwnDeadline() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofSeconds(1)).build();
    admitted(limiter.acquire());
    CompletableFuture<Permit> early = limiter.acquire();
    limiters.time.advance(Duration.ofMillis(600));
    CompletableFuture<Permit> late = limiter.acquire();

    limiters.time.advance(Duration.ofMillis(400));
    limiters.executor.runAll();

    assertThat(outcomeOf(early)).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(late).isNotDone();
  }

  @Test
  void admittedWaiterNoLongerTimesOut() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofSeconds(1)).build();
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    held.release();
    limiters.executor.runAll();
    limiters.time.advance(Duration.ofSeconds(5));
    limiters.executor.runAll();

    assertThat(waiter).isCompleted();
    assertThat(limiters.time.pendingTasks()).as("timeout task cancelled").isZero();
    assertThat(limiter.snapshot().rejectedQueueTimeout()).isZero();
  }

  @Test
  void queuedNanosIsMeasuredOnTheInjectedClock() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    limiters.time.advance(Duration.ofMillis(250));
    held.release();
    limiters.executor.runAll();

    assertThat(waiter.join().queuedNanos()).isEqualTo(Duration.ofMillis(250).toNanos());
  }

  @Test
  void blockingAcquireReturnsAPermitWhenFree() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);

    try (Permit permit = limiter.acquireBlocking()) {
      assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
      assertThat(permit.isReleased()).isFalse();
    }
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void blockingAcquireThrowsTheRejection() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    admitted(limiter.acquire());

    assertThatThrownBy(limiter::acquireBlocking)
        .isInstanceOfSatisfying(ConcurrencyRejectedException.class, e -> {
          assertThat(e.outcome()).isEqualTo(Outcome.QUEUE_FULL);
          assertThat(e.limiterName()).isEqualTo("test");
        });
  }

  @Test
  void interruptedBlockingCallerLeavesTheQueue() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    admitted(limiter.acquire());

    Thread.currentThread().interrupt();
    assertThatThrownBy(limiter::acquireBlocking).isInstanceOf(InterruptedException.class);

    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().cancelled()).isEqualTo(1);
  }

  static Outcome outcomeOf(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(ConcurrencyRejectedException.class);
      return ((ConcurrencyRejectedException) e.getCause()).outcome();
    }
    throw new AssertionError("not rejected: " + future);
  }
}
