package dev.sluice.rate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What every algorithm's per-key state carries for {@link KeyedStates}: whether it has been retired
 * (dropped from the map), so that a decision made on a state a sweep removed meanwhile is noticed
 * and made again on the key's current state.
 *
 * <p>Retiring is two steps, {@code LIVE -> RETIRING -> RETIRED}, so that it can race with a decision
 * without a lock: the sweep marks the state {@code RETIRING}, then checks the state is still the one
 * it judged full; a decision updates the state, then reads the mark, and a decision that sees
 * {@code RETIRING} claims the state back ({@code RETIRING -> LIVE}), making the sweep give up. Each
 * side writes before it reads the other's write (Dekker), so at least one of them sees the other:
 * no update is ever kept on a state that left the map.
 */
abstract class KeyState {

  private static final int LIVE = 0;
  private static final int RETIRING = 1;
  private static final int RETIRED = 2;
  private static final VarHandle MARK;

  static {
    try {
      MARK = MethodHandles.lookup().findVarHandle(KeyState.class, "mark", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private volatile int mark;

  /**
   * Read after a decision updated this state: true when the update counts (the state is, or stays,
   * in the map); false when the state was retired, so the decision must be made again.
   */
  final boolean live() {
    // the common case in line, the race out of line: a decision's caller inlines this whole path
    return mark == LIVE || liveAfterRace();
  }

  private boolean liveAfterRace() {
    while (true) {
      int current = (int) MARK.getVolatile(this);
      if (current == LIVE) {
        return true;
      }
      if (current == RETIRED) {
        return false;
      }
      if (MARK.compareAndSet(this, RETIRING, LIVE)) {
        return true;
      }
    }
  }

  /** First step of retiring; false when already retired or being retired. */
  final boolean beginRetiring() {
    return MARK.compareAndSet(this, LIVE, RETIRING);
  }

  /** Gives up retiring (the state changed since it was judged). */
  final void abortRetiring() {
    MARK.compareAndSet(this, RETIRING, LIVE);
  }

  /** Last step: false when a decision claimed the state back in between. */
  final boolean completeRetiring() {
    return MARK.compareAndSet(this, RETIRING, RETIRED);
  }

  /**
   * Retires at once, whatever a concurrent decision does: for a state evicted by the key bound (an
   * update racing with it may be lost, as the eviction loses the state anyway).
   */
  final void retireNow() {
    MARK.setVolatile(this, RETIRED);
  }
}
