package dev.sluice.concurrency.internal;

/** A permit whose service time is measured: it remembers when it was granted (32 bytes). */
class TimedPermit extends GrantedPermit {

  private final long admittedAtNanos;

  TimedPermit(BoundedQueueLimiter limiter, int units, long admittedAtNanos) {
    super(limiter, units);
    this.admittedAtNanos = admittedAtNanos;
  }

  @Override
  final boolean timed() {
    return true;
  }

  @Override
  final long admittedAtNanos() {
    return admittedAtNanos;
  }
}
