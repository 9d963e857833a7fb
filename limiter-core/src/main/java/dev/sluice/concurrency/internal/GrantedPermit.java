package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Permit;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A permit handed out by {@link BoundedQueueLimiter}; one object per admission. This base class is
 * the untimed permit granted at once, and holds only what release needs (24 bytes): the limiter
 * and the flag that makes release idempotent. {@link TimedPermit} adds the admission time, {@link
 * QueuedPermit} what a queued waiter's permit reports.
 */
class GrantedPermit implements Permit {

  private static final VarHandle RELEASED;

  static {
    try {
      RELEASED = MethodHandles.lookup().findVarHandle(GrantedPermit.class, "released", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final BoundedQueueLimiter limiter;

  /** Units of the limit this permit holds (its caller's cost, at most the limit when granted). */
  final int units;

  @SuppressWarnings("unused") // written through RELEASED
  private volatile int released;

  GrantedPermit(BoundedQueueLimiter limiter, int units) {
    this.limiter = limiter;
    this.units = units;
  }

  /** Whether this permit's service time is measured (see BoundedQueueLimiter#timeThisPermit). */
  boolean timed() {
    return false;
  }

  /** When the permit was granted; meaningful only when {@link #timed()}. */
  long admittedAtNanos() {
    return 0;
  }

  /** Grant order of a queued waiter (tests check FIFO with it); -1 when admitted at once. */
  long grantSequence() {
    return -1;
  }

  /** Queue order of a queued waiter; -1 when admitted at once. */
  long queueSequence() {
    return -1;
  }

  @Override
  public final void release() {
    // the CAS makes release idempotent even when two threads release at once
    if (RELEASED.compareAndSet(this, 0, 1)) {
      limiter.release(this);
    }
  }

  @Override
  public final boolean isReleased() {
    return released != 0;
  }

  @Override
  public long queuedNanos() {
    return 0;
  }

  @Override
  public String toString() {
    return "Permit[" + limiter.name() + (isReleased() ? ", released]" : "]");
  }
}
