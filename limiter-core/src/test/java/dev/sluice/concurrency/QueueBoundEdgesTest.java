package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Who may queue, at the edges of the bounds: a queue exactly full, a per-key cap exactly reached,
 * displacement by a higher class, and a bound lowered under the waiters already queued. Limiters
 * are configured by their spec only.
 */
class QueueBoundEdgesTest {

  private final VirtualTime time = new VirtualTime();

  private ConcurrencyLimiter limiter(int maxQueue, QueueSpec queue) {
    return ConcurrencyLimiter.builder("bounds")
        .spec(LimiterSpec.custom()
            .maxConcurrency(1)
            .maxQueue(maxQueue)
            .queueTimeout(Duration.ofSeconds(10))
            .queue(queue)
            .build())
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .build();
  }

  private static ConcurrencyRejectedException rejection(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    return (ConcurrencyRejectedException) future.handle((p, e) -> e).join();
  }

  private static List<CompletableFuture<Permit>> queue(
      ConcurrencyLimiter limiter, Caller caller, int n) {
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      waiters.add(limiter.acquire(caller));
    }
    return waiters;
  }

  private static Caller sheddable(String key) {
    return Caller.of(key).withPriority(Priority.SHEDDABLE);
  }

  private static Caller critical(String key) {
    return Caller.of(key).withPriority(Priority.CRITICAL);
  }

  @Test
  void theLastFreePlaceInTheQueueIsTaken() {
    ConcurrencyLimiter limiter = limiter(3, QueueSpec.fifo());
    admitted(limiter.acquire());

    List<CompletableFuture<Permit>> waiters = queue(limiter, Caller.DEFAULT, 3);

    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(limiter.snapshot().queued()).isEqualTo(3);
  }

  @Test
  void oneCallerMoreThanTheQueueHoldsIsRefusedAsQueueFull() {
    ConcurrencyLimiter limiter = limiter(3, QueueSpec.fifo());
    admitted(limiter.acquire());
    queue(limiter, Caller.DEFAULT, 3);

    ConcurrencyRejectedException refused = rejection(limiter.acquire());

    assertThat(refused.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(refused.reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    assertThat(limiter.snapshot().rejectedQueueFull()).isEqualTo(1);
    assertThat(limiter.snapshot().rejectedLate()).isZero();
  }

  @Test
  void aQueueOfOneTakesOneWaiter() {
    ConcurrencyLimiter limiter = limiter(1, QueueSpec.fifo());
    admitted(limiter.acquire());

    CompletableFuture<Permit> first = limiter.acquire();
    CompletableFuture<Permit> second = limiter.acquire();

    assertThat(first).isNotDone();
    assertThat(rejection(second).reason()).isEqualTo(RejectionReason.QUEUE_FULL);
  }

  @Test
  void aKeyMayQueueUpToItsCap() {
    ConcurrencyLimiter limiter =
        limiter(10, QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(2).build()));
    admitted(limiter.acquire());

    List<CompletableFuture<Permit>> waiters = queue(limiter, Caller.of("tenant"), 2);

    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void aKeyAtItsCapIsRefusedWithKeyCapWhileTheQueueHasRoom() {
    ConcurrencyLimiter limiter =
        limiter(10, QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(2).build()));
    admitted(limiter.acquire());
    queue(limiter, Caller.of("tenant"), 2);

    ConcurrencyRejectedException refused = rejection(limiter.acquire(Caller.of("tenant")));

    assertThat(refused.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(refused.reason()).isEqualTo(RejectionReason.KEY_CAP);
    assertThat(limiter.queueSnapshot().rejectedKeyCap()).isEqualTo(1);
  }

  @Test
  void aKeyWhoseWaiterLeftMayQueueAgainUnderItsCap() {
    ConcurrencyLimiter limiter =
        limiter(10, QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(1).build()));
    admitted(limiter.acquire());
    CompletableFuture<Permit> first = limiter.acquire(Caller.of("tenant"));
    first.cancel(false);

    CompletableFuture<Permit> again = limiter.acquire(Caller.of("tenant"));

    assertThat(again).isNotDone();
    assertThat(limiter.queueSnapshot().rejectedKeyCap()).isZero();
  }

  @Test
  void aCapOfZeroLetsOneKeyFillTheQueue() {
    ConcurrencyLimiter limiter =
        limiter(5, QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(0).build()));
    admitted(limiter.acquire());

    List<CompletableFuture<Permit>> waiters = queue(limiter, Caller.of("tenant"), 5);

    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(rejection(limiter.acquire(Caller.of("tenant"))).reason())
        .isEqualTo(RejectionReason.QUEUE_FULL);
  }

  @Test
  void aCriticalCallerAtAFullQueueDisplacesTheNewestSheddableWaiter() {
    ConcurrencyLimiter limiter = limiter(2, QueueSpec.prioritized());
    admitted(limiter.acquire());
    CompletableFuture<Permit> older = limiter.acquire(sheddable("a"));
    CompletableFuture<Permit> newer = limiter.acquire(sheddable("b"));

    CompletableFuture<Permit> vip = limiter.acquire(critical("c"));

    assertThat(vip).isNotDone();
    assertThat(older).isNotDone();
    ConcurrencyRejectedException displaced = rejection(newer);
    assertThat(displaced.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(displaced.reason()).isEqualTo(RejectionReason.DISPLACED);
    assertThat(limiter.snapshot().queued()).isEqualTo(2);
    assertThat(limiter.snapshot().rejectedLate()).isEqualTo(1);
    assertThat(limiter.queueSnapshot().displaced()).isEqualTo(1);
  }

  @Test
  void aCriticalCallerWithRoomLeftDisplacesNobody() {
    ConcurrencyLimiter limiter = limiter(3, QueueSpec.prioritized());
    admitted(limiter.acquire());
    List<CompletableFuture<Permit>> sheddable = queue(limiter, sheddable("a"), 2);

    CompletableFuture<Permit> vip = limiter.acquire(critical("c"));

    assertThat(vip).isNotDone();
    assertThat(sheddable).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(limiter.queueSnapshot().displaced()).isZero();
  }

  @Test
  void afterTheBoundIsLoweredUnderTheQueuedCountACriticalCallerDisplacesNobody() {
    ConcurrencyLimiter limiter = limiter(4, QueueSpec.prioritized());
    admitted(limiter.acquire());
    List<CompletableFuture<Permit>> sheddable = queue(limiter, sheddable("a"), 4);
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxQueue(2).build());

    // one displacement would not bring four waiters under a bound of two: refused, nobody shed
    ConcurrencyRejectedException refused = rejection(limiter.acquire(critical("c")));

    assertThat(refused.reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    assertThat(sheddable).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(limiter.snapshot().queued()).isEqualTo(4);
  }

  @Test
  void aLoweredBoundLetsTheWaitersStayAndAdmitsNewcomersOnceTheyAreUnderIt() {
    ConcurrencyLimiter limiter = limiter(3, QueueSpec.fifo());
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = queue(limiter, Caller.DEFAULT, 3);
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxQueue(1).build());
    assertThat(rejection(limiter.acquire()).reason()).isEqualTo(RejectionReason.QUEUE_FULL);

    running.release(); // the first waiter runs: two left, still over the bound
    assertThat(rejection(limiter.acquire()).reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    waiters.get(0).join().release(); // one left: the bound is full
    assertThat(rejection(limiter.acquire()).reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    waiters.get(1).join().release(); // none left

    assertThat(limiter.acquire()).isNotDone();
  }
}
