package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.RejectionReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Rejection by predicted wait ({@code rejectEarly}), and the unchanged contract without it. */
class RejectEarlyTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(1);
  private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * Alike jobs that make the prediction's bound (a lower confidence bound of their mean, see
   * WaitPrediction#serviceBoundNanos) 99.3 % of it: these tests are about the prediction in force,
   * not about how fast it is learnt (LearningFromTheFirstJobsTest).
   */
  private static final int TRAINED = 400;

  private final Limiters limiters = new Limiters();

  /** A listener has every permit timed, so the samples counted are exactly the jobs trained. */
  private ConcurrencyLimiter limiter(boolean rejectEarly, int limit) {
    return limiters
        .builder(Limiters.spec(limit, 100, TIMEOUT).rejectEarly(rejectEarly).build())
        .listener(new ConcurrencyListener() {})
        .build();
  }

  /** {@code n} jobs of 100 ms each, one after another: the mean service time becomes 100 ms. */
  private void train(ConcurrencyLimiter limiter, int n) {
    for (int i = 0; i < n; i++) {
      Permit permit = admitted(limiter.acquire());
      limiters.time.advance(Duration.ofMillis(100));
      permit.release();
    }
  }

  private List<Permit> holdAll(ConcurrencyLimiter limiter, int n) {
    List<Permit> held = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      held.add(admitted(limiter.acquire()));
    }
    return held;
  }

  private List<CompletableFuture<Permit>> queue(ConcurrencyLimiter limiter, int n) {
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      waiters.add(limiter.acquire());
    }
    return waiters;
  }

  private static ConcurrencyRejectedException rejection(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    return (ConcurrencyRejectedException) future.handle((p, e) -> e).join();
  }

  @Test
  void answersAtOnceWhenThePredictedWaitExceedsTheTimeout() {
    ConcurrencyLimiter limiter = limiter(true, 2);
    train(limiter, TRAINED);
    holdAll(limiter, 2);

    // the k-th newcomer waits (k + 1) x 99.3 ms / 2: the 20th 993 ms, still in time
    List<CompletableFuture<Permit>> waiters = queue(limiter, 20);
    CompletableFuture<Permit> tooLate = limiter.acquire();
    limiters.executor.runAll();

    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    ConcurrencyRejectedException rejected = rejection(tooLate);
    assertThat(rejected.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(rejected.reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
    // 21 x 99.3 ms / 2: past the timeout, short of the plain mean's 1050 ms
    assertThat(rejected.retryAfterNanos()).isBetween(1000 * MS, 1050 * MS);
    assertThat(limiter.snapshot().queued()).isEqualTo(20);
  }

  @Test
  void whenTheTurnoverWobblesTheQueueKeepsAMarginBeforeTheTimeout() {
    ConcurrencyLimiter limiter = limiter(true, 2);
    // the same mean of 100 ms as above, but jobs of 20 and 180 ms: the prediction moves by job
    for (int i = 0; i < TRAINED; i++) {
      Permit permit = admitted(limiter.acquire());
      limiters.time.advance(Duration.ofMillis(i % 2 == 0 ? 20 : 180));
      permit.release();
    }
    holdAll(limiter, 2);

    List<CompletableFuture<Permit>> waiters = queue(limiter, 20);
    limiters.executor.runAll();

    // fewer than the 20 that fit the plain prediction (their bound, 92 % of the mean after 400
    // of these, would let 21 in); the margin is at most 3, so about a third of them at least
    int queued = limiter.snapshot().queued();
    assertThat(queued).isBetween(5, 19);
    assertThat(rejection(waiters.get(queued)).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
  }

  @Test
  void theCallersOwnShorterTimeoutCounts() {
    ConcurrencyLimiter limiter = limiter(true, 1);
    train(limiter, TRAINED);
    holdAll(limiter, 1);
    Caller hurried = Caller.of("client").withTimeout(Duration.ofMillis(250));

    CompletableFuture<Permit> first = limiter.acquire(hurried); // 99 ms
    CompletableFuture<Permit> second = limiter.acquire(hurried); // 199 ms
    CompletableFuture<Permit> third = limiter.acquire(hurried); // 298 ms > 250 ms

    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(rejection(third).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
    assertThat(rejection(third).retryAfterNanos()).isBetween(250 * MS, 300 * MS);
  }

  @Test
  void oneTimedJobIsNoGroundToRefuseOnAPlainMean() {
    ConcurrencyLimiter limiter = limiter(true, 1);
    train(limiter, 1);
    holdAll(limiter, 1);

    // a plain mean of the one 100 ms job would refuse the 10th: its bound, 21 ms, admits 30
    List<CompletableFuture<Permit>> waiters = queue(limiter, 30);
    limiters.executor.runAll();
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void aQueuedWaiterWhoseDeadlineBecameUnreachableIsRejectedEarly() {
    ConcurrencyLimiter limiter = limiter(true, 4);
    train(limiter, TRAINED);
    List<Permit> held = holdAll(limiter, 4);
    List<CompletableFuture<Permit>> waiters = queue(limiter, 20); // at most 525 ms at limit 4

    limiter.reconfigure(LimiterSpec.from(limiter.spec())
        .maxConcurrency(1)
        .build()); // now each needs 99.3 ms a caller ahead
    limiters.time.advance(Duration.ofMillis(300)); // the first re-check, 250 ms in
    limiters.executor.runAll();

    // 750 ms were left at the re-check, and the four held have run three times the mean, so
    // nothing is left of their turn: the k-th needs k x 101 ms, the first 8 can still make it
    assertThat(waiters.subList(0, 8)).allSatisfy(w -> assertThat(w).isNotDone());
    for (int k = 8; k < 20; k++) {
      ConcurrencyRejectedException rejected = rejection(waiters.get(k));
      assertThat(rejected.outcome()).isEqualTo(Outcome.QUEUE_FULL);
      assertThat(rejected.reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
      // once the 9th has left, each later one has 8 ahead again: 8 jobs, over the 750 ms left;
      // the four held have run 300 ms, three times the mean, which raises the bound to 101 ms
      // (the running jobs count as if they finished now: WaitPrediction#serviceBoundNanos)
      assertThat(rejected.retryAfterNanos()).isBetween(800 * MS, 820 * MS);
    }
    assertThat(limiter.snapshot().queued()).isEqualTo(8);

    // no permit lost or invented: the survivors are served one at a time once the four are back
    held.forEach(Permit::release);
    limiters.executor.runAll();
    assertThat(waiters.get(0)).isCompleted();
    assertThat(waiters.get(1)).isNotDone();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void withRejectEarlyOffAWaiterStillTimesOutWith504() {
    ConcurrencyLimiter limiter = limiter(false, 2);
    train(limiter, TRAINED);
    holdAll(limiter, 2);

    List<CompletableFuture<Permit>> waiters = queue(limiter, 30);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());

    limiters.time.advance(TIMEOUT);
    limiters.executor.runAll();
    assertThat(waiters).allSatisfy(w -> {
      assertThat(rejection(w).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
      assertThat(rejection(w).reason()).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
    });
  }

  @Test
  void aWaiterThatCanMakeItIsServedNotRejected() {
    ConcurrencyLimiter limiter = limiter(true, 2);
    train(limiter, TRAINED);
    List<Permit> held = holdAll(limiter, 2);
    CompletableFuture<Permit> waiter = limiter.acquire();

    limiters.time.advance(Duration.ofMillis(900)); // re-checked three times, always in time
    held.get(0).release();
    limiters.executor.runAll();

    assertThat(waiter).isCompleted();
  }
}
