package dev.sluice.concurrency.internal;

import java.util.concurrent.TimeUnit;

/**
 * Standing-queue control ({@code queueDelayTarget}, adaptive LIFO): once the queue has held
 * waiters without draining for an interval, permits go to the newest waiters and those that have
 * waited the target are shed with {@code STANDING_QUEUE}, down to {@link #ROUNDS_KEPT} rounds of
 * work. A policy of {@link AdmissionPolicy}; the queue state it reads is the engine's ({@link
 * BoundedQueueLimiter}), under the engine's lock where it says so.
 */
final class StandingQueue {

  /**
   * Rounds of work (the limit's permits, in units) a standing queue keeps. Chosen in virtual time
   * (one to eight permits, Poisson arrivals, 200 ms jobs, a 100 ms target, 40 seeds): shedding
   * down to nothing kept the permits busy 85 % of the time at twice the capacity with one permit;
   * keeping one round did 94-100 % of FIFO's work there, two rounds 97-100 %, with admitted waits
   * of about two jobs at most. More rounds only add waiting.
   */
  static final int ROUNDS_KEPT = 2;

  /** A waiter past the target is looked at no more often than this while the queue may stand. */
  private static final long MIN_STANDING_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private static final long STANDING_INTERVAL_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final BoundedQueueLimiter engine;
  private final WaitLine line;

  /** The target in nanoseconds, 0 when off; reconfigurable. */
  private volatile long targetNanos;

  /** Since when the queue has held a waiter without draining; written under the lock. */
  private volatile long nonEmptySince;

  StandingQueue(BoundedQueueLimiter engine, WaitLine line, long targetNanos) {
    this.engine = engine;
    this.line = line;
    this.targetNanos = targetNanos;
  }

  /** The target in nanoseconds, 0 when off. */
  long targetNanos() {
    return targetNanos;
  }

  /** Newcomers are checked against it; waiters at their next check. */
  void targetNanos(long target) {
    targetNanos = target;
  }

  /** The queue starts to form: it is not standing yet. Caller holds the lock. */
  void startsAt(long now) {
    nonEmptySince = now;
  }

  /**
   * Whether the drain serves the newest first: while the queue stands and holds more than the
   * rounds of work it keeps (those are served oldest first, or a waiter kept near capacity could
   * be passed over for seconds). Caller holds the lock.
   */
  boolean newestFirstLocked() {
    long target = targetNanos;
    return target > 0
        && standing(engine.clock.nanoTime(), target)
        && line.queuedUnits() > keptUnits();
  }

  /** Whether {@code waiter}, looked at {@code now}, is shed: it has waited its share and the queue stands. */
  boolean sheds(Waiter waiter, long now, long target) {
    return target > 0
        && now - waiter.enqueuedAtNanos >= target
        && standing(now, target)
        && othersHoldRounds(waiter);
  }

  /** The queue has held waiters without draining for the standing interval. */
  private boolean standing(long now, long target) {
    return BoundedQueueLimiter.queued(engine.state) > 0
        && now - nonEmptySince >= standingIntervalNanos(target);
  }

  /**
   * Whether the other waiters would still fill every permit {@link #ROUNDS_KEPT} times over: a
   * standing queue is shed down to that much work, never below, as CoDel never drops the last
   * packet's worth of its queue. A waiter kept by this is served within a few service times (the
   * permits free up and the newest go first) or shed once newer callers arrive. Shedding it
   * instead can leave a permit idle that the next release could have used, which near capacity
   * costs goodput for nothing.
   */
  private boolean othersHoldRounds(Waiter waiter) {
    engine.lock.lock();
    try {
      return line.queuedUnits() - waiter.queuedUnits >= keptUnits();
    } finally {
      engine.lock.unlock();
    }
  }

  /** The units of work a standing queue keeps: {@link #ROUNDS_KEPT} times the limit. */
  private long keptUnits() {
    return (long) ROUNDS_KEPT * engine.limit();
  }

  /**
   * When a waiter is looked at next for shedding: when it will have waited the target, then every
   * interval while the queue may start to stand.
   */
  long nextCheckNanos(Waiter waiter, long now, long target) {
    long waited = now - waiter.enqueuedAtNanos;
    // before the target: at the target; after it: when the queue would have stood an interval
    // (it is shed then, not an interval later)
    long standsIn = nonEmptySince + standingIntervalNanos(target) - now;
    // once standing (or kept as the last round of work), a tenth of the target: shed at most
    // that late, and a waiter kept for seconds is looked at tens of times a second, not a
    // thousand
    long floor = Math.max(MIN_STANDING_CHECK_NANOS, target / 10);
    return waited < target ? target - waited : Math.max(floor, standsIn);
  }

  /** {@code max(100 ms, target)}: see {@code LimiterSpec.Builder#queueDelayTarget}. */
  static long standingIntervalNanos(long target) {
    return Math.max(STANDING_INTERVAL_FLOOR_NANOS, target);
  }
}
