package dev.sluice.concurrency;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/** A permit handed out by {@link BoundedQueueLimiter}; one object per admission. */
final class GrantedPermit implements Permit {

  private static final VarHandle RELEASED;

  static {
    try {
      RELEASED = MethodHandles.lookup().findVarHandle(GrantedPermit.class, "released", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final BoundedQueueLimiter limiter;

  /** When the permit was granted; meaningful only when {@link #timed}. */
  final long admittedAtNanos;

  /** Whether this permit's service time is measured (see BoundedQueueLimiter#timeThisPermit). */
  final boolean timed;

  private final long queuedNanos;

  /** Grant order of a queued waiter (tests check FIFO with it); -1 when admitted at once. */
  final long grantSequence;

  /** Queue order of a queued waiter; -1 when admitted at once. */
  final long queueSequence;

  @SuppressWarnings("unused") // written through RELEASED
  private volatile int released;

  /** A permit granted at once; {@code admittedAtNanos} is ignored unless {@code timed}. */
  GrantedPermit(BoundedQueueLimiter limiter, long admittedAtNanos, boolean timed) {
    this.limiter = limiter;
    this.admittedAtNanos = admittedAtNanos;
    this.timed = timed;
    this.queuedNanos = 0;
    this.queueSequence = -1;
    this.grantSequence = -1;
  }

  /** A permit granted to a queued waiter: always timed (the wait already read the clock). */
  GrantedPermit(
      BoundedQueueLimiter limiter,
      long admittedAtNanos,
      long queuedNanos,
      long queueSequence,
      long grantSequence) {
    this.limiter = limiter;
    this.admittedAtNanos = admittedAtNanos;
    this.timed = true;
    this.queuedNanos = queuedNanos;
    this.queueSequence = queueSequence;
    this.grantSequence = grantSequence;
  }

  @Override
  public void release() {
    // the CAS makes release idempotent even when two threads release at once
    if (RELEASED.compareAndSet(this, 0, 1)) {
      limiter.release(this);
    }
  }

  @Override
  public boolean isReleased() {
    return released != 0;
  }

  @Override
  public long queuedNanos() {
    return queuedNanos;
  }

  @Override
  public String toString() {
    return "Permit[" + limiter.name() + (isReleased() ? ", released]" : "]");
  }
}
