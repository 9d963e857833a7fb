package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.Reconfiguration;
import dev.sluice.concurrency.RejectionReason;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A new limiter with reject-early (a fresh node, one an autoscaler just added) predicts waits from
 * what it knows for certain: the jobs running now, the first finished ones, an expected service
 * time if given; refusing only when even the optimistic end of the prediction misses the timeout.
 */
class ColdStartPredictionTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final Limiters limiters = new Limiters();

  private ConcurrencyLimiter limiter(LimiterSpec.Builder spec) {
    return limiters.builder(1, 100, TIMEOUT).spec(spec.build()).build();
  }

  private static LimiterSpec.Builder spec(int limit) {
    return LimiterSpec.custom()
        .maxConcurrency(limit)
        .maxQueue(100)
        .queueTimeout(TIMEOUT)
        .rejectEarly(true);
  }

  private static List<Permit> holdAll(ConcurrencyLimiter limiter, int n) {
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
    limiters.executor.runAll();
    return waiters;
  }

  private static RejectionReason reason(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    return ((ConcurrencyRejectedException) future.handle((p, e) -> e).join()).reason();
  }

  private static long refusedFor(List<CompletableFuture<Permit>> waiters, RejectionReason why) {
    return waiters.stream()
        .filter(CompletableFuture::isCompletedExceptionally)
        .filter(w -> reason(w) == why)
        .count();
  }

  @Test
  void runningJobsProveAWaitTooLongBeforeAnyJobFinished() {
    ConcurrencyLimiter limiter = limiter(spec(4));
    holdAll(limiter, 4);
    limiters.time.advance(Duration.ofMillis(1500));

    // four jobs have run 1.5 s: the mean is at least 0.63 s (95 %), and the running ones may end
    // any moment; so a caller with 13 or more ahead of it would wait 13 x 0.63 / 4 > 2 s
    List<CompletableFuture<Permit>> callers = queue(limiter, 30);

    assertThat(limiter.snapshot().serviceCount()).isZero();
    assertThat(callers.subList(0, 13)).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(callers.subList(13, 30))
        .allSatisfy(w -> assertThat(reason(w)).isEqualTo(RejectionReason.PREDICTED_WAIT));
    assertThat(limiter.snapshot().queued()).isEqualTo(13);
  }

  @Test
  void justStartedJobsProveNothing() {
    ConcurrencyLimiter limiter = limiter(spec(4));
    holdAll(limiter, 4);

    List<CompletableFuture<Permit>> callers = queue(limiter, 30);

    assertThat(callers).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void aQueueLeftWaitingIsToldWhenTheRunningJobsShowItCannotBeServed() {
    ConcurrencyLimiter limiter = limiter(spec(4));
    holdAll(limiter, 4);
    List<CompletableFuture<Permit>> callers = queue(limiter, 30);

    // the jobs run on; nobody finishes: the re-checks see the running jobs' time grow
    limiters.time.advance(Duration.ofSeconds(1));
    limiters.executor.runAll();

    // re-checked at 500 and 875 ms (bounds of 0.21 and 0.37 s): by then more than half are
    // told, the furthest back first; the first in line can still make it
    assertThat(refusedFor(callers, RejectionReason.PREDICTED_WAIT)).isGreaterThanOrEqualTo(15);
    assertThat(refusedFor(callers, RejectionReason.QUEUE_TIMEOUT)).isZero();
    assertThat(callers.subList(0, 5)).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void anExpectedServiceTimeSeedsThePredictionBeforeAnyJobRan() {
    ConcurrencyLimiter hinted = limiter(spec(1).expectedServiceTime(Duration.ofMillis(400)));
    ConcurrencyLimiter plain = limiter(spec(1));
    holdAll(hinted, 1);
    holdAll(plain, 1);

    // four jobs' worth of 400 ms: a bound of 169 ms, so the 12th (12 x 169 ms > 2 s) is refused
    List<CompletableFuture<Permit>> hintedCallers = queue(hinted, 20);
    List<CompletableFuture<Permit>> plainCallers = queue(plain, 20);

    assertThat(hintedCallers.subList(0, 11)).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(hintedCallers.subList(11, 20))
        .allSatisfy(w -> assertThat(reason(w)).isEqualTo(RejectionReason.PREDICTED_WAIT));
    assertThat(plainCallers).allSatisfy(w -> assertThat(w).isNotDone());
  }

  @Test
  void realJobsReplaceAWrongHint() {
    // the hint says 10 s; the jobs take 100 ms
    ConcurrencyLimiter limiter = limiter(spec(1).expectedServiceTime(Duration.ofSeconds(10)));
    assertThat(reason(queueBehind(limiter))).isEqualTo(RejectionReason.PREDICTED_WAIT);

    for (int i = 0; i < 10; i++) {
      Permit permit = admitted(limiter.acquire());
      limiters.time.advance(Duration.ofMillis(100));
      permit.release();
    }
    holdAll(limiter, 1);

    // ten callers of 100 ms fit in 2 s: the hint left no trace that refuses them
    assertThat(queue(limiter, 10)).allSatisfy(w -> assertThat(w).isNotDone());
  }

  /** One permit held, one caller behind it: refused at once if one job is predicted past 2 s. */
  private CompletableFuture<Permit> queueBehind(ConcurrencyLimiter limiter) {
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> behind = queue(limiter, 1).get(0);
    held.release();
    limiters.executor.runAll();
    return behind;
  }

  @Test
  void aHintGivenLiveCountsOnlyUntilEnoughJobsWereTimed() {
    ConcurrencyLimiter fresh = limiter(spec(1));
    ConcurrencyLimiter used = limiter(spec(1));
    for (int i = 0; i < WaitPrediction.SEED_SAMPLES; i++) {
      Permit job = admitted(used.acquire());
      limiters.time.advance(Duration.ofMillis(100));
      job.release();
    }

    LimiterSpec hinted = LimiterSpec.from(fresh.spec())
        .expectedServiceTime(Duration.ofSeconds(10))
        .build();
    Reconfiguration seeded = fresh.reconfigure(hinted);
    Reconfiguration ignored = used.reconfigure(hinted);

    assertThat(seeded.applied()).containsExactly("expectedServiceTime none -> PT10S");
    assertThat(ignored.applied()).singleElement().asString().contains("jobs were timed already");
    assertThat(fresh.spec().expectedServiceTime()).contains(Duration.ofSeconds(10));
    assertThat(reason(queueBehind(fresh))).isEqualTo(RejectionReason.PREDICTED_WAIT);
    assertThat(queueBehind(used)).isCompleted();
  }

  @Test
  void costsAndAFairQueueCountInTheRunningJobsBound() {
    // two jobs of cost 2 fill a limit of 4 and have run 1.5 s: per unit at least 0.23 s
    ConcurrencyLimiter limiter = limiter(spec(4).queue(QueueSpec.fair(FairQueueConfig.DEFAULT)));
    Caller heavy = Caller.of("host-a").withCost(2);
    admitted(limiter.acquire(heavy));
    admitted(limiter.acquire(heavy));
    limiters.time.advance(Duration.ofMillis(1500));

    List<CompletableFuture<Permit>> callers = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      callers.add(limiter.acquire(Caller.of("host-" + i).withCost(2)));
    }
    limiters.executor.runAll();

    // each its own key, so everyone queued is ahead of a newcomer; the running two may end any
    // moment: units ahead x 0.23 s / 4 > 2 s from 34.4 units ahead on, so 18 callers of 2 queue
    assertThat(callers.subList(0, 18)).allSatisfy(w -> assertThat(w).isNotDone());
    assertThat(callers.subList(18, 30))
        .allSatisfy(w -> assertThat(reason(w)).isEqualTo(RejectionReason.PREDICTED_WAIT));
  }
}
