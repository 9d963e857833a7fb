package dev.sluice.concurrency.internal;

/** The permit of a caller that waited in the queue: always timed (its wait read the clock). */
final class QueuedPermit extends TimedPermit {

  private final long queuedNanos;
  private final long queueSequence;
  private final long grantSequence;

  QueuedPermit(
      BoundedQueueLimiter limiter,
      int units,
      long admittedAtNanos,
      long queuedNanos,
      long queueSequence,
      long grantSequence) {
    super(limiter, units, admittedAtNanos);
    this.queuedNanos = queuedNanos;
    this.queueSequence = queueSequence;
    this.grantSequence = grantSequence;
  }

  @Override
  public long queuedNanos() {
    return queuedNanos;
  }

  @Override
  long grantSequence() {
    return grantSequence;
  }

  @Override
  long queueSequence() {
    return queueSequence;
  }
}
