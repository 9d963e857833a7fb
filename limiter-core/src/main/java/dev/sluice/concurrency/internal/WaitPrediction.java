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
 *
 * <p>A caller is admitted to the queue only when its predicted wait, stretched by a {@linkplain
 * #margin() margin} for how much the prediction moves, fits its timeout; a queued waiter is
 * rejected at a re-check when the prediction itself no longer fits what is left. The two
 * thresholds apart are a dead band: a caller admitted at the edge (predicted 9.9 s of a 10 s
 * timeout) would otherwise be refused at its first re-check by the next wobble of an adaptive
 * limit, after waiting for nothing. On the simulated server with jobs of 50 and 800 ms under a
 * CPU limit, 41-45 % of the refusals came that way; with the margin, 3-5 %, and the same work
 * done.
 */
final class WaitPrediction {

  /** Timed permits needed before any prediction is made. */
  static final int MIN_SAMPLES = 32;

  /**
   * Standard deviations of the recent turnover rate an admitted caller's predicted wait must leave
   * before its timeout: three keeps the late refusals of the mix above to a few percent, where two
   * left 6-10 %.
   */
  static final double MARGIN_DEVIATIONS = 3;

  /** The largest margin: a caller predicted to need a third of its timeout is always admitted. */
  static final double MAX_MARGIN = 3;

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

  /**
   * What an arriving caller's predicted wait is multiplied by before it is set against its
   * timeout: 1 + {@value #MARGIN_DEVIATIONS} x the recent turnover rate's coefficient of variation,
   * at most {@value #MAX_MARGIN}. Uniform jobs under a fixed limit: about 1 (exactly the plain
   * prediction); jobs of 50 and 800 ms under a CPU limit: about 1.8.
   */
  double margin() {
    return Math.min(MAX_MARGIN, 1 + MARGIN_DEVIATIONS * stats.rateVariation());
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
