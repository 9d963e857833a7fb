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
 * Standing-queue control ({@code queueDelayTarget}) at its edges: the instant a queue starts to
 * stand (the interval is {@code max(100 ms, target)}), the instant a waiter has waited the target,
 * and the two rounds of work a standing queue keeps. One permit, so two rounds are two waiters.
 */
class StandingQueueEdgesTest {

  private static final long MS = Duration.ofMillis(1).toNanos();

  private final VirtualTime time = new VirtualTime();

  private ConcurrencyLimiter limiter(Duration target) {
    return limiter(target, QueueSpec.fifo());
  }

  private ConcurrencyLimiter limiter(Duration target, QueueSpec queue) {
    return ConcurrencyLimiter.builder("standing")
        .spec(LimiterSpec.custom()
            .maxConcurrency(1)
            .maxQueue(100)
            .queueTimeout(Duration.ofSeconds(10))
            .queueDelayTarget(target)
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

  /** {@code n} waiters, one a millisecond. */
  private List<CompletableFuture<Permit>> arrive(ConcurrencyLimiter limiter, int n) {
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      if (i > 0) {
        time.advanceNanos(MS);
      }
      waiters.add(limiter.acquire());
    }
    return waiters;
  }

  @Test
  void aQueueStandsOnlyAfterTheHundredMillisecondIntervalEvenWithAShorterTarget() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(20));
    admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 3); // the queue formed at 0

    time.advanceNanos(100 * MS - 2 * MS - 1); // 1 ns before the queue has stood 100 ms
    assertThat(waiters.get(0)).isNotDone();
    time.advanceNanos(1);

    assertThat(rejection(waiters.get(0)).reason()).isEqualTo(RejectionReason.STANDING_QUEUE);
    assertThat(waiters.get(1)).isNotDone();
  }

  @Test
  void withATargetAboveTheIntervalAWaiterIsShedExactlyWhenItHasWaitedTheTarget() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(200));
    admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 3);

    time.advanceNanos(200 * MS - 2 * MS - 1);
    assertThat(waiters.get(0)).isNotDone();
    time.advanceNanos(1);

    ConcurrencyRejectedException shed = rejection(waiters.get(0));
    assertThat(shed.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(shed.reason()).isEqualTo(RejectionReason.STANDING_QUEUE);
    assertThat(limiter.snapshot().rejectedStandingQueue()).isEqualTo(1);
  }

  @Test
  void aStandingQueueOfExactlyTwoRoundsKeepsBothWaitersAndServesTheOldest() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(20));
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 2);
    time.advanceNanos(300 * MS);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());

    running.release();

    assertThat(waiters.get(0)).isCompleted();
    assertThat(waiters.get(1)).isNotDone();
  }

  @Test
  void aStandingQueueOfThreeShedsItsOldestAtTheTarget() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(20));
    admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 3);

    time.advanceNanos(300 * MS);

    assertThat(rejection(waiters.get(0)).reason()).isEqualTo(RejectionReason.STANDING_QUEUE);
    assertThat(waiters.get(1)).isNotDone();
    assertThat(waiters.get(2)).isNotDone();
  }

  @Test
  void aStandingQueueOfMoreThanTwoRoundsServesTheNewestFirst() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(20));
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 2);
    time.advanceNanos(140 * MS); // standing; the two are the rounds kept, nobody shed
    List<CompletableFuture<Permit>> burst = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      burst.add(limiter.acquire());
    }

    running.release();

    assertThat(burst.get(2)).isCompleted();
    assertThat(burst.get(0)).isNotDone();
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void withPriorityClassesAStandingQueueAlsoServesTheNewestOfTheClassFirst() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(20), QueueSpec.prioritized());
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 2);
    time.advanceNanos(140 * MS);
    List<CompletableFuture<Permit>> burst = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      burst.add(limiter.acquire());
    }

    running.release();

    assertThat(burst.get(2)).isCompleted();
    assertThat(burst.get(0)).isNotDone();
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void theInstantTheQueueHasStoodTheIntervalItServesTheNewest() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(200));
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 4); // formed at 0, the last at 3 ms
    time.advanceNanos(200 * MS - 3 * MS);
    // the oldest has waited the target in a standing queue with three others: shed
    assertThat(rejection(waiters.get(0)).reason()).isEqualTo(RejectionReason.STANDING_QUEUE);

    running.release();

    assertThat(waiters.get(3)).isCompleted();
    assertThat(waiters.get(1)).isNotDone();
  }

  @Test
  void aQueueOneNanosecondShortOfStandingServesTheOldest() {
    ConcurrencyLimiter limiter = limiter(Duration.ofMillis(200));
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = arrive(limiter, 4);
    time.advanceNanos(200 * MS - 3 * MS - 1);

    running.release();

    assertThat(waiters.get(0)).isCompleted();
    assertThat(waiters.get(3)).isNotDone();
  }
}
