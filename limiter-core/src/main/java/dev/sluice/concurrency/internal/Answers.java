package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.time.NanoClock;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * How a local limiter answers the callers of its slow path, once their fate is decided and its
 * lock released: counts the outcome, tells the listener, and completes the future on the
 * executor, never inline on the thread that decided it (a releaser, a timer). The fast path
 * answers in the engine ({@link BoundedQueueLimiter}), with no call through here.
 */
final class Answers {

  private final BoundedQueueLimiter engine;
  private final String name;
  private final NanoClock clock;
  private final Executor executor;
  private final LimiterStats stats;
  private final AdmissionPolicy admission;
  /** Null when the user configured none: then no listener call is made at all. */
  private final GuardedListener listener;

  Answers(
      BoundedQueueLimiter engine,
      Executor executor,
      LimiterStats stats,
      AdmissionPolicy admission,
      GuardedListener listener) {
    this.engine = engine;
    this.name = engine.name();
    this.clock = engine.clock;
    this.executor = executor;
    this.stats = stats;
    this.admission = admission;
    this.listener = listener;
  }

  /** Counts and answers a caller refused at arrival. */
  CompletableFuture<Permit> refused(Arrival arrival) {
    stats.rejected(arrival.rejection);
    stats.rejectedFor(arrival.reason);
    if (listener != null) {
      listener.rejected(arrival.rejection, arrival.reason, 0);
    }
    return CompletableFuture.failedFuture(new ConcurrencyRejectedException(
        arrival.rejection,
        arrival.reason,
        name,
        arrival.predictedWait >= 0
            ? arrival.predictedWait
            : admission.retryAfterNanos(arrival.queuedAhead)));
  }

  /** A caller joined the queue. */
  void queued() {
    stats.queuedTotal.increment();
    if (listener != null) {
      listener.queued();
    }
  }

  /** Completes granted waiters' futures on the executor, never inline on this thread. */
  void granted(Waiter granted) {
    while (granted != null) {
      Waiter waiter = granted;
      granted = waiter.nextGranted;
      waiter.nextGranted = null;
      waiter.cancelTimeout();
      long now = clock.nanoTime();
      long waited = now - waiter.enqueuedAtNanos;
      stats.leftQueue(waited);
      if (listener != null) {
        listener.admitted(waited);
      }
      stats.started(now, waiter.units);
      GrantedPermit permit = new QueuedPermit(
          engine, waiter.units, now, waited, waiter.queueSequence, waiter.grantSequence);
      execute(() -> {
        // the caller cancelled between grant and completion: the permit goes to the next one
        if (!waiter.complete(permit)) {
          permit.release();
        }
      });
    }
  }

  /** Answers the waiters of a chain (see WaitLine#shutDown) as rejected with {@code outcome}. */
  void rejected(Waiter chain, Outcome outcome, RejectionReason reason) {
    while (chain != null) {
      Waiter waiter = chain;
      chain = waiter.nextGranted;
      waiter.nextGranted = null;
      waiter.cancelTimeout();
      rejected(waiter, outcome, reason, 0, -1);
    }
  }

  /**
   * Counts and answers a waiter that leaves without a permit, with {@code queuedNow} still queued;
   * {@code retryAfter} -1: estimated from the queue.
   */
  void rejected(
      Waiter waiter, Outcome outcome, RejectionReason reason, int queuedNow, long retryAfter) {
    long waited = clock.nanoTime() - waiter.enqueuedAtNanos;
    stats.leftQueue(waited);
    stats.rejected(outcome);
    stats.rejectedFor(reason);
    if (outcome == Outcome.QUEUE_FULL) {
      stats.rejectedLate.increment(); // it had queued: a late answer, counted apart
    }
    if (listener != null) {
      listener.rejected(outcome, reason, waited);
    }
    if (outcome != Outcome.CANCELLED) {
      ConcurrencyRejectedException rejected = new ConcurrencyRejectedException(
          outcome,
          reason,
          name,
          retryAfter >= 0 ? retryAfter : admission.retryAfterNanos(queuedNow));
      execute(() -> waiter.completeExceptionally(rejected));
    }
  }

  private void execute(Runnable completion) {
    try {
      executor.execute(completion);
    } catch (RejectedExecutionException e) {
      // the executor is shut down or saturated: completing here is better than stranding the
      // waiter (and, for a grant, its permit) forever
      completion.run();
    }
  }
}
