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
  final long admittedAtNanos;
  private final long queuedNanos;

  /** Grant order of a queued waiter (tests check FIFO with it); -1 when admitted at once. */
  final long grantSequence;

  /** Queue order of a queued waiter; -1 when admitted at once. */
  final long queueSequence;

  @SuppressWarnings("unused") // written through RELEASED
  private volatile int released;

  GrantedPermit(BoundedQueueLimiter limiter, long admittedAtNanos) {
    this(limiter, admittedAtNanos, 0, -1, -1);
  }

  GrantedPermit(
      BoundedQueueLimiter limiter,
      long admittedAtNanos,
      long queuedNanos,
      long queueSequence,
      long grantSequence) {
    this.limiter = limiter;
    this.admittedAtNanos = admittedAtNanos;
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
