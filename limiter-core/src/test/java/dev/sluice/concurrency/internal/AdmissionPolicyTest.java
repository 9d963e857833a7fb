package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.RejectionReason;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The admission policy's answers, read without waiting: at a full queue a caller of a higher class
 * displaces the newest waiter of a lower one and takes its place; a queued caller is timed out at
 * its deadline.
 */
class AdmissionPolicyTest {

  private final Limiters limiters = new Limiters();

  private final ConcurrencyLimiter limiter = limiters
      .builder(Limiters.spec(1, 2, Duration.ofSeconds(10))
          .queue(QueueSpec.prioritized())
          .build())
      .build();

  private static Caller of(String key, Priority priority) {
    return Caller.of(key).withPriority(priority);
  }

  private static ConcurrencyRejectedException rejection(CompletableFuture<Permit> future) {
    assertThat(future).as("refused").isCompletedExceptionally();
    return (ConcurrencyRejectedException) future.handle((p, e) -> e).join();
  }

  @Test
  void aHigherClassAtAFullQueueDisplacesTheNewestWaiterOfALowerOne() {
    admitted(limiter.acquire());
    CompletableFuture<Permit> older = limiter.acquire(of("a", Priority.SHEDDABLE));
    CompletableFuture<Permit> newer = limiter.acquire(of("b", Priority.SHEDDABLE));

    CompletableFuture<Permit> critical = limiter.acquire(of("c", Priority.CRITICAL));
    limiters.executor.runAll();

    assertThat(critical).as("queued in the displaced waiter's place").isNotDone();
    assertThat(older).isNotDone();
    assertThat(rejection(newer).reason()).isEqualTo(RejectionReason.DISPLACED);
    assertThat(limiter.snapshot().queued()).isEqualTo(2);
  }

  @Test
  void aQueuedCallerTimesOutAtItsDeadlineToTheNanosecond() {
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiting = limiter.acquire();

    limiters.time.advanceNanos(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(waiting).isNotDone();
    limiters.time.advanceNanos(1);
    limiters.executor.runAll();

    ConcurrencyRejectedException timedOut = rejection(waiting);
    assertThat(timedOut.outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(limiter.snapshot().queued()).isZero();
  }
}
