package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import java.util.concurrent.CompletableFuture;

/**
 * One caller of a {@link GlobalLimiter}: the future handed to it, and its place in this node's line
 * of callers that hold a local permit and wait for a cluster lease.
 *
 * <p>Its fate is decided once, by a CAS ({@link PendingPermit}): a lease that arrives after a
 * timeout or a cancel won the race is given straight back, never kept.
 */
final class GlobalAcquire extends PendingPermit {

  private final GlobalLimiter limiter;
  final Caller caller;
  final long arrivedNanos;
  final long timeoutNanos;
  final String ticket;

  /** The local limiter's future while the caller queues on this node; cancelled with this one. */
  volatile CompletableFuture<Permit> local;

  /** The local permit, once granted: held while waiting for the lease, released with it. */
  volatile Permit localPermit;

  /** The thread inside {@code acquire} while it runs, else null (see GlobalLimiter#complete). */
  volatile Thread callingThread;

  /** Whether this caller waited (locally or for a lease): counted once as queued. */
  volatile boolean countedQueued;

  // guarded by the limiter's line lock: at most one store call per caller in flight
  boolean asking;
  boolean askAgain;

  GlobalAcquire(
      GlobalLimiter limiter, Caller caller, long arrivedNanos, long timeoutNanos, String ticket) {
    this.limiter = limiter;
    this.caller = caller;
    this.arrivedNanos = arrivedNanos;
    this.timeoutNanos = timeoutNanos;
    this.ticket = ticket;
  }

  /** Cancelling leaves the local queue or the lease line; a permit that raced it is given back. */
  @Override
  void abandoned() {
    limiter.abandon(this, Outcome.CANCELLED);
  }
}
