package dev.sluice.rate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.function.LongPredicate;

/**
 * A state that is one {@code long} updated by CAS (token bucket, GCRA, leaky bucket, fixed
 * window): an {@code AtomicLong} that can also be retired (same 24 bytes with compressed oops).
 */
final class LongState extends KeyState {

  private static final VarHandle VALUE;

  static {
    try {
      VALUE = MethodHandles.lookup().findVarHandle(LongState.class, "value", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile long value;

  LongState(long value) {
    this.value = value;
  }

  long get() {
    return value;
  }

  boolean compareAndSet(long expected, long update) {
    return VALUE.compareAndSet(this, expected, update);
  }

  /**
   * Retires this state if {@code idle} holds for its value and no update lands meanwhile: the value
   * is read again after the mark is set, and a decision that updated it first makes this give up.
   */
  boolean retireIf(LongPredicate idle) {
    long judged = value;
    if (!idle.test(judged) || !beginRetiring()) {
      return false;
    }
    if (value != judged) {
      abortRetiring();
      return false;
    }
    return completeRetiring();
  }
}
