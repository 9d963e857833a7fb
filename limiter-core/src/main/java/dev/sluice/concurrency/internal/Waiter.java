package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.WaitQueue;

/**
 * A queued caller of a local limiter: the future handed to it (its fate decided once, see {@link
 * PendingPermit}), plus its place in the queue.
 */
final class Waiter extends PendingPermit implements WaitQueue.Entry {

  private final BoundedQueueLimiter limiter;
  private final Caller caller;
  final long enqueuedAtNanos;

  // Owned by the built-in WaitQueues and read only under the limiter's lock: prev/next link a
  // FIFO queue, or one key's waiters in a fair queue; the fair queue also links every waiter in
  // arrival order (older/newer, to find the newest for displacement) and points to its key's flow.
  Waiter prev;
  Waiter next;
  Waiter older;
  Waiter newer;
  FairWaitQueue.Flow flow;
  boolean queued;

  /** Order of joining the queue and of being granted, stamped under the lock (FIFO checks). */
  long queueSequence;

  long grantSequence;

  /**
   * rejectEarly only, stamped under the lock when it joins: how many were ahead of it, and how
   * many had left the queue before (so later departures tell how many it has moved up).
   */
  int aheadAtJoin;

  long leftBeforeJoin;

  /** Units counted in the limiter's queued units while it waits; under the lock. */
  int queuedUnits = 1;

  /** Units granted (its cost, at most the limit then), set under the lock by the drain. */
  int units = 1;

  /** Links the waiters granted by one drain, so they are dispatched after the lock is released. */
  Waiter nextGranted;

  Waiter(BoundedQueueLimiter limiter, Caller caller, long enqueuedAtNanos) {
    this.limiter = limiter;
    this.caller = caller;
    this.enqueuedAtNanos = enqueuedAtNanos;
  }

  @Override
  public Caller caller() {
    return caller;
  }

  @Override
  public long enqueuedAtNanos() {
    return enqueuedAtNanos;
  }

  @Override
  void abandoned() {
    limiter.abandon(this, Outcome.CANCELLED);
  }
}
