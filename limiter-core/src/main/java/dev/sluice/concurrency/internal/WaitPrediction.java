package dev.sluice.concurrency.internal;

import java.util.concurrent.TimeUnit;

/**
 * Rejection by predicted wait ({@code rejectEarly}): a caller who would queue is told at once, with
 * {@link RejectionReason#PREDICTED_WAIT}, when the work ahead of it cannot be served within its
 * timeout, instead of waiting that whole timeout for a 504; a queued waiter whose deadline has
 * become unreachable (the limit shrank, service slowed) is told as soon as a re-check sees it.
 *
 * <p>Predicted wait = (callers ahead + 1) x recent service time / limit: the limit's permits turn
 * over once per service time. Nothing is predicted before {@value #MIN_SAMPLES} permits were
 * timed: a mean of a handful of jobs would reject callers on a guess.
 */
final class WaitPrediction {

  /** Timed permits needed before any prediction is made. */
  static final int MIN_SAMPLES = 32;

  /** Shortest and longest pause between two re-checks of one waiter. */
  static final long MIN_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  static final long MAX_RECHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final LimiterStats stats;

  WaitPrediction(LimiterStats stats) {
    this.stats = stats;
  }

  /**
   * The recent service time of the timed permits (weighted toward the last jobs, see {@link
   * LimiterStats}), or -1 while fewer than {@link #MIN_SAMPLES} were timed. A lifetime mean would
   * keep predicting from a fast past after the service slowed, and admit callers who then time
   * out. Sums striped counters: call it off the fast path, and outside the limiter's lock.
   */
  long meanServiceNanos() {
    long count = stats.timedCount.sum();
    double recent = stats.recentServiceNanos();
    return count < MIN_SAMPLES || Double.isNaN(recent) ? -1 : (long) recent;
  }

  /** The predicted wait of a caller of cost 1 with {@code ahead} callers of cost 1 before it. */
  static long waitNanos(int ahead, double limit, long meanServiceNanos) {
    return waitNanos(ahead, 1, limit, meanServiceNanos);
  }

  /**
   * The predicted wait of a caller of {@code ownUnits} with {@code aheadUnits} units of work
   * queued before it: the limit's units turn over once per unit's service time. Saturates.
   */
  static long waitNanos(double aheadUnits, int ownUnits, double limit, long unitServiceNanos) {
    double wait = (aheadUnits + ownUnits) * unitServiceNanos / Math.max(1.0, limit);
    return wait >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) wait;
  }

  /**
   * How long until a waiter with {@code remainingNanos} before its deadline is looked at again: a
   * quarter of what is left, within [{@link #MIN_RECHECK_NANOS}, {@link #MAX_RECHECK_NANOS}], and
   * never past the deadline (where it times out).
   */
  static long recheckDelayNanos(long remainingNanos) {
    long delay = Math.max(MIN_RECHECK_NANOS, Math.min(MAX_RECHECK_NANOS, remainingNanos / 4));
    return Math.min(delay, remainingNanos);
  }
}
