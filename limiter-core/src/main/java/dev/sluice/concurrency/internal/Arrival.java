package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;

/**
 * One caller on a local limiter's slow path: what {@link AdmissionPolicy} read before taking the
 * lock (its timeout, the prediction's inputs), and what was decided under it (admitted, refused,
 * queued, and who was displaced or granted meanwhile), answered once the lock is released. One
 * object per slow-path caller, never on the fast path.
 */
final class Arrival {

  final Waiter waiter;
  final int units;
  /** The shorter of the caller's timeout and the limiter's, saturated. */
  final long timeoutNanos;

  /** Reject-early was on when it arrived; read once, as a reconfiguration may turn it off. */
  final boolean early;

  /** The prediction's mean service time per unit, -1 when there is none (or early is off). */
  final long meanServiceNanos;

  final long firstTurnNanos;
  final double margin;

  /** Units taken at once under the lock (a permit came free since the fast path looked). */
  int taken;

  boolean admitted;
  Outcome rejection;
  RejectionReason reason;
  int queuedAhead;
  /** The predicted wait that refused it, -1 for none: then Retry-After comes from the queue. */
  long predictedWait = -1;

  /** Waiters granted by the drain after it joined: dispatched after the lock is released. */
  Waiter granted;

  /** The waiter displaced to make room for it: answered after the lock is released. */
  Waiter displaced;

  Arrival(
      Waiter waiter,
      long timeoutNanos,
      boolean early,
      long meanServiceNanos,
      long firstTurnNanos,
      double margin) {
    this.waiter = waiter;
    this.units = waiter.caller().cost();
    this.timeoutNanos = timeoutNanos;
    this.early = early;
    this.meanServiceNanos = meanServiceNanos;
    this.firstTurnNanos = firstTurnNanos;
    this.margin = margin;
  }

  void admit(int units) {
    taken = units;
    admitted = true;
  }

  void refuse(Outcome outcome, RejectionReason why, int ahead) {
    rejection = outcome;
    reason = why;
    queuedAhead = ahead;
  }
}
