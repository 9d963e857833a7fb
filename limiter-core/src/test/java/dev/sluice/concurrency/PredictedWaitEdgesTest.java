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
 * Rejection by predicted wait ({@code rejectEarly}) at its edges: a wait exactly as long as the
 * timeout, a deadline reached exactly, and when a queued waiter is looked at again. Limiters are
 * configured by their spec only; time is virtual.
 */
class PredictedWaitEdgesTest {

  private static final Duration HINT = Duration.ofMillis(100);

  private final VirtualTime time = new VirtualTime();

  private ConcurrencyLimiter limiter(int limit, Duration timeout) {
    return ConcurrencyLimiter.builder("edges")
        .spec(LimiterSpec.custom()
            .maxConcurrency(limit)
            .maxQueue(1000)
            .queueTimeout(timeout)
            .rejectEarly(true)
            .expectedServiceTime(HINT)
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

  private static List<Permit> holdAll(ConcurrencyLimiter limiter) {
    List<Permit> held = new ArrayList<>();
    for (int i = 0; i < limiter.limit(); i++) {
      held.add(admitted(limiter.acquire()));
    }
    return held;
  }

  private static List<CompletableFuture<Permit>> queue(ConcurrencyLimiter limiter, int n) {
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      waiters.add(limiter.acquire());
    }
    return waiters;
  }

  /** The wait the limiter predicts for the next caller, read from a refusal that queues nobody. */
  private static long predictedWaitNanos(ConcurrencyLimiter limiter) {
    CompletableFuture<Permit> probe =
        limiter.acquire(Caller.DEFAULT.withTimeout(Duration.ofNanos(1)));
    ConcurrencyRejectedException refused = rejection(probe);
    assertThat(refused.reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
    return refused.retryAfterNanos();
  }

  @Test
  void aCallerWhosePredictedWaitIsExactlyItsTimeoutQueues() {
    ConcurrencyLimiter limiter = limiter(1, Duration.ofSeconds(10));
    holdAll(limiter);
    long predicted = predictedWaitNanos(limiter);

    CompletableFuture<Permit> exact =
        limiter.acquire(Caller.DEFAULT.withTimeout(Duration.ofNanos(predicted)));

    assertThat(exact).isNotDone();
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
  }

  @Test
  void aCallerWhoseTimeoutIsOneNanosecondShortOfThePredictedWaitIsRefused() {
    ConcurrencyLimiter limiter = limiter(1, Duration.ofSeconds(10));
    holdAll(limiter);
    long predicted = predictedWaitNanos(limiter);

    CompletableFuture<Permit> short1 =
        limiter.acquire(Caller.DEFAULT.withTimeout(Duration.ofNanos(predicted - 1)));

    ConcurrencyRejectedException refused = rejection(short1);
    assertThat(refused.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(refused.reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
    assertThat(refused.retryAfterNanos()).isEqualTo(predicted);
    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().rejectedPredictedWait()).isEqualTo(2);
  }

  @Test
  void theWaitOfEachCallerGrowsWithTheCallersAheadOfIt() {
    ConcurrencyLimiter limiter = limiter(1, Duration.ofSeconds(10));
    holdAll(limiter);
    long alone = predictedWaitNanos(limiter);
    queue(limiter, 3);

    long behindThree = predictedWaitNanos(limiter);

    // each caller ahead adds one service time to the first turn of the running job
    assertThat(behindThree).isBetween(4 * alone - 4, 4 * alone + 4);
  }

  @Test
  void aWiderLimitShortensThePredictedWaitInProportion() {
    ConcurrencyLimiter narrow = limiter(1, Duration.ofSeconds(10));
    ConcurrencyLimiter wide = limiter(4, Duration.ofSeconds(10));
    holdAll(narrow);
    holdAll(wide);
    queue(narrow, 3);
    queue(wide, 3);

    long wideWait = predictedWaitNanos(wide);

    assertThat(predictedWaitNanos(narrow)).isBetween(4 * wideWait - 4, 4 * wideWait + 4);
  }

  @Test
  void aWaiterAtTheHeadBehindARunningJobReachesItsDeadlineAndTimesOut() {
    // the running job has run as long as the service time is thought to be: the head is next
    ConcurrencyLimiter limiter = limiter(1, Duration.ofSeconds(1));
    holdAll(limiter);
    CompletableFuture<Permit> head = limiter.acquire();

    time.advanceNanos(Duration.ofSeconds(1).toNanos() - 1);
    assertThat(head).isNotDone();
    time.advanceNanos(1);

    ConcurrencyRejectedException timedOut = rejection(head);
    assertThat(timedOut.outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(timedOut.reason()).isEqualTo(RejectionReason.QUEUE_TIMEOUT);
  }

  @Test
  void aWaiterWhoseWaitNoLongerFitsIsToldAtItsFirstRecheckAQuarterOfItsTimeoutLater() {
    ConcurrencyLimiter limiter = limiter(4, Duration.ofSeconds(1));
    holdAll(limiter);
    List<CompletableFuture<Permit>> waiters = queue(limiter, 20);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(1).build());

    time.advanceNanos(Duration.ofMillis(250).toNanos() - 1);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    time.advanceNanos(1);

    assertThat(rejection(waiters.get(19)).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
    assertThat(waiters.get(0)).isNotDone();
  }

  @Test
  void aWaiterWithALongTimeoutIsLookedAtAgainWithinHalfASecond() {
    ConcurrencyLimiter limiter = limiter(4, Duration.ofSeconds(10));
    holdAll(limiter);
    List<CompletableFuture<Permit>> waiters = queue(limiter, 200);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(1).build());

    time.advanceNanos(Duration.ofMillis(500).toNanos() - 1);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    time.advanceNanos(1);

    assertThat(rejection(waiters.get(199)).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
  }

  @Test
  void aWaiterWithAShortTimeoutIsLookedAtAgainNoSoonerThanFiftyMilliseconds() {
    ConcurrencyLimiter limiter = limiter(4, Duration.ofMillis(120));
    holdAll(limiter);
    List<CompletableFuture<Permit>> waiters = queue(limiter, 3);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(1).build());

    time.advanceNanos(Duration.ofMillis(50).toNanos() - 1);
    assertThat(waiters).allSatisfy(w -> assertThat(w).isNotDone());
    time.advanceNanos(1);

    assertThat(rejection(waiters.get(2)).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
  }
}
