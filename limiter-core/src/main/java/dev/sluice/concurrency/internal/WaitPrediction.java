package dev.sluice.concurrency.internal;

import java.util.concurrent.TimeUnit;

/**
 * Rejection by predicted wait ({@code rejectEarly}): a caller who would queue is told at once, with
 * {@link RejectionReason#PREDICTED_WAIT}, when the work ahead of it cannot be served within its
 * timeout, instead of waiting that whole timeout for a 504; a queued waiter whose deadline has
 * become unreachable (the limit shrank, service slowed) is told as soon as a re-check sees it.
 *
 * <p>Predicted wait = (callers ahead x service time + what is left of the running jobs) / limit:
 * the limit's permits turn over once per service time. The service time is a <em>lower confidence bound</em> of the mean (see
 * {@link #serviceBoundNanos}), wide while few jobs were seen and narrowing as they come, so a
 * node predicts from its first jobs, and even before any has finished from how long the running
 * ones have run already, yet does not refuse on the guess of a handful of jobs: a caller is
 * refused only when even an optimistic service time puts its wait past its timeout (and, as
 * below, its margin).
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

  /**
   * Standard deviations of the sample mean below it that the service time's bound lies: 2, about
   * 97.7 % one-sided (see {@link #serviceBoundNanos}).
   */
  static final double CONFIDENCE_DEVIATIONS = 2;

  /**
   * The spread assumed before the jobs show theirs: a coefficient of variation of 1 (the
   * exponential's; a job mix from seconds to a minute has less), worth {@value #PRIOR_SPREAD_WEIGHT}
   * samples of spread, so two alike first jobs do not make a mix look uniform.
   */
  static final double PRIOR_VARIATION2 = 1;

  static final int PRIOR_SPREAD_WEIGHT = 2;

  /**
   * Jobs an expected service time ({@code expectedServiceTime}) counts as: one fewer for each job
   * timed, so the real ones replace it after this many.
   */
  static final int SEED_SAMPLES = 4;

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
   * Seeds the prediction with an expected service time per unit (0: none), worth {@value
   * #SEED_SAMPLES} jobs less those timed so far. Returns whether it counts now, i.e. fewer jobs
   * than that were timed.
   */
  boolean seed(long expectedServiceNanos) {
    stats.seed(expectedServiceNanos);
    return stats.timedCount.sum() < SEED_SAMPLES;
  }

  /** The pseudo-jobs a seed counts as after {@code finished} timed jobs. */
  static long seedWeight(long finished) {
    return Math.max(0, SEED_SAMPLES - finished);
  }

  /**
   * A lower confidence bound of the mean service time per unit at {@code now}, or -1 while
   * nothing is known (no job finished, none running, no expected time given). Sums striped
   * counters: call it off the fast path, and outside the limiter's lock.
   *
   * <p>The statistics. From n service times of mean m and coefficient of variation c, the bound
   * is
   *
   * <pre>    bound(n, m) = n m / (n + c^2 + z c sqrt(n + c^2)),   z = {@value #CONFIDENCE_DEVIATIONS}</pre>
   *
   * to first order m (1 - z c / sqrt(n)), the normal bound of a mean; for c = 1 (exponential
   * times) it is close to the exact bound 2 n m / chi2(2n + 2, 97.7 %). c^2 pools a prior spread
   * ({@value #PRIOR_VARIATION2}, worth {@value #PRIOR_SPREAD_WEIGHT} samples) with the spread of
   * every timed job. Two such bounds are taken, and the larger used (each holds at about 97.7 %,
   * so the larger at 95 % or better):
   *
   * <ul>
   *   <li>from the finished jobs, m their recent mean (weighted toward the last jobs, see {@link
   *       LimiterStats}: a lifetime mean would keep predicting from a fast past after the service
   *       slowed), and an expected service time's pseudo-jobs if one was given ({@value
   *       #SEED_SAMPLES}, one fewer per job timed);
   *   <li>from those and the running jobs together, each running one counted as if it finished
   *       now: it has run at least that long (a censored sample), so the mean over all of them
   *       can only be larger. This one speaks before any job has finished, and when the service
   *       slows: with no job finished and four running for 1.5 s each it is 0.63 s.
   * </ul>
   *
   * So one finished job of 400 ms gives a bound of 83 ms (a fifth: one job proves little); ten
   * alike jobs 78 % of their mean, 32 92 %, 100 97 %; a mix of 50 and 800 ms jobs stays lower
   * longer (74 % after 32), as it should: its mean is known less well.
   */
  long serviceBoundNanos(long now) {
    long finished = stats.timedCount.sum();
    double recent = stats.recentServiceNanos();
    double seed = stats.seedNanos();
    long seeds = Double.isNaN(seed) ? 0 : seedWeight(finished);
    long timed = Double.isNaN(recent) ? 0 : finished;
    double known = timed + seeds;
    double knownTotal = (timed > 0 ? timed * recent : 0) + (seeds > 0 ? seeds * seed : 0);
    long running = stats.runningTimed();
    double elapsed = running > 0 ? stats.runningElapsedNanos(now) : 0;
    if (known <= 0 && !(elapsed > 0)) {
      return -1;
    }
    double observed = stats.serviceVariation2(finished);
    double spread = Double.isNaN(observed)
        ? PRIOR_VARIATION2
        : (PRIOR_SPREAD_WEIGHT * PRIOR_VARIATION2 + (finished - 1) * observed)
            / (PRIOR_SPREAD_WEIGHT + finished - 1);
    double bound = Math.max(
        bound(known, knownTotal, spread), bound(known + running, knownTotal + elapsed, spread));
    return bound >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) bound;
  }

  /** {@code bound(n, m)} above, of {@code n} samples summing to {@code total}; 0 for none. */
  static double bound(double n, double total, double spread) {
    if (!(n > 0) || !(total > 0)) {
      return 0;
    }
    double c = Math.sqrt(spread);
    return total / (n + spread + CONFIDENCE_DEVIATIONS * c * Math.sqrt(n + spread));
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

  /**
   * What is left, per unit, of the service of the permits in flight: the service time {@code
   * unitServiceNanos} less the mean time the timed running permits have run, at least 0 (the
   * service time itself when none is timed). It stands for the first turn of the permits in a
   * wait: a waiter at the head of the queue whose running jobs are nearly done is about to be
   * served, and a prediction that charged it a whole service time again at every re-check would
   * refuse it just before its turn. Sums striped counters, as {@link #serviceBoundNanos}.
   */
  long firstTurnNanos(long now, long unitServiceNanos) {
    long running = stats.runningTimed();
    if (running == 0 || unitServiceNanos <= 0) {
      return unitServiceNanos;
    }
    double ran = stats.runningElapsedNanos(now) / running;
    return (long) Math.max(0, unitServiceNanos - ran);
  }

  /** The predicted wait of a caller of cost 1 with {@code ahead} callers of cost 1 before it. */
  static long waitNanos(int ahead, double limit, long meanServiceNanos) {
    return waitNanos(ahead, 1, limit, meanServiceNanos, meanServiceNanos);
  }

  /**
   * The predicted wait of a caller of {@code ownUnits} with {@code aheadUnits} units of work
   * queued before it: the limit's units turn over once per unit's service time, the first turn
   * in what is left of the running jobs ({@code firstTurnNanos} per unit, see {@link
   * #firstTurnNanos}). Saturates.
   */
  static long waitNanos(
      double aheadUnits, int ownUnits, double limit, long unitServiceNanos, long firstTurnNanos) {
    double wait =
        (aheadUnits * unitServiceNanos + ownUnits * (double) firstTurnNanos) / Math.max(1.0, limit);
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
