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
 * The admission policy's answers at a full queue, read in the call without waiting: a caller of a
 * higher class displaces the newest waiter of a lower one and takes its place, and one of the same
 * class is refused while the waiters keep theirs.
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
  void aCallerOfTheSameClassAtAFullQueueIsRefusedAndTheWaitersKeepTheirPlaces() {
    admitted(limiter.acquire());
    CompletableFuture<Permit> first = limiter.acquire(of("a", Priority.SHEDDABLE));
    CompletableFuture<Permit> second = limiter.acquire(of("b", Priority.SHEDDABLE));

    CompletableFuture<Permit> third = limiter.acquire(of("c", Priority.SHEDDABLE));
    limiters.executor.runAll();

    ConcurrencyRejectedException refused = rejection(third);
    assertThat(refused.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(refused.reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(limiter.snapshot().queued()).isEqualTo(2);
  }
}
