package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind {@link ConcurrencySnapshot}. Striped adders rather than atomics: writers on
 * different cores do not fight over one cache line, and the snapshot (rare) pays for the sum. The
 * maxima use an accumulator, which writes only when a new maximum appears.
 *
 * <p>No counter of admissions: every admitted permit is either still in flight (counted in the
 * limiter's state word) or released (counted here), so admitted = released + in flight, and the
 * fast path saves one striped increment per permit.
 *
 * <p>Counts are exact; service <em>time</em> may be sampled (see {@link
 * BoundedQueueLimiter#timeThisPermit()}): {@link #timedCount} permits of the {@link #released}
 * ones were timed, and totals are scaled up from them.
 */
final class LimiterStats {

  final LongAdder queuedTotal = new LongAdder();
  final LongAdder rejectedQueueFull = new LongAdder();
  final LongAdder rejectedQueueTimeout = new LongAdder();
  final LongAdder cancelled = new LongAdder();
  final LongAdder rejectedShutdown = new LongAdder();
  /** Queue-full answers with a finer reason (also counted in {@link #rejectedQueueFull}). */
  final LongAdder rejectedKeyCap = new LongAdder();

  final LongAdder displaced = new LongAdder();
  /** Queue-full answers given after the caller had queued (displaced, predicted wait, shed). */
  final LongAdder rejectedLate = new LongAdder();

  final LongAdder predictedWait = new LongAdder();
  final LongAdder standingQueue = new LongAdder();

  /**
   * Service time weighted toward recent permits (weight {@value #RECENT_WEIGHT} per sample, so
   * about the last 10 jobs count): what predictions use, so a service that slows down is seen in
   * a few jobs, not diluted by its whole history. Updated without a lock: two releases at once may
   * lose one sample's update, which moves an average of ten by a tenth at most.
   */
  private volatile double recentServiceNanos = Double.NaN;

  static final double RECENT_WEIGHT = 0.1;

  /**
   * The rate the limit turns work over (the limit in force / the recent service time per unit),
   * sampled at each timed release and weighted as the service time, with its variance: how far a
   * wait predicted now can be trusted. The limit of an adaptive source moves and jobs of mixed
   * sizes move the service time; uniform jobs under a fixed limit keep it near zero.
   */
  private volatile double recentRate = Double.NaN;

  private volatile double recentRateVariance;

  final LongAdder queueWaitCount = new LongAdder();
  final LongAdder queueWaitTotal = new LongAdder();
  final LongAccumulator queueWaitMax = new LongAccumulator(Math::max, 0);

  /** The largest admitted count a snapshot has reported: keeps the derived count monotonic. */
  final LongAccumulator admittedReported = new LongAccumulator(Math::max, 0);

  /** Every release, timed or not: the snapshot's {@code serviceCount}. */
  final LongAdder released = new LongAdder();

  final LongAdder timedCount = new LongAdder();
  final LongAdder timedTotal = new LongAdder();
  final LongAccumulator serviceMax = new LongAccumulator(Math::max, 0);

  void rejected(Outcome outcome) {
    switch (outcome) {
      case QUEUE_FULL -> rejectedQueueFull.increment();
      case QUEUE_TIMEOUT -> rejectedQueueTimeout.increment();
      case CANCELLED -> cancelled.increment();
      case SHUTDOWN -> rejectedShutdown.increment();
      case ADMITTED -> throw new IllegalArgumentException("not a rejection: " + outcome);
    }
  }

  /** Counts the finer reasons the queue disciplines give; {@link #rejected} counts the outcome. */
  void rejectedFor(RejectionReason reason) {
    if (reason == RejectionReason.KEY_CAP) {
      rejectedKeyCap.increment();
    } else if (reason == RejectionReason.DISPLACED) {
      displaced.increment();
    } else if (reason == RejectionReason.PREDICTED_WAIT) {
      predictedWait.increment();
    } else if (reason == RejectionReason.STANDING_QUEUE) {
      standingQueue.increment();
    }
  }

  /** The recent service time per unit of cost (see {@link #recentServiceNanos}), NaN before the first. */
  double recentServiceNanos() {
    return recentServiceNanos;
  }

  /** Samples the turnover rate (see {@link #recentRate}) from a service time just updated. */
  private void rateSampled(double limit, double serviceNanos) {
    if (Double.isNaN(limit) || !(serviceNanos > 0)) {
      return;
    }
    double rate = Math.max(1.0, limit) / serviceNanos;
    double mean = recentRate;
    if (Double.isNaN(mean)) {
      recentRate = rate;
      return;
    }
    double diff = rate - mean;
    recentRate = mean + RECENT_WEIGHT * diff;
    recentRateVariance = (1 - RECENT_WEIGHT) * (recentRateVariance + RECENT_WEIGHT * diff * diff);
  }

  /**
   * The recent turnover rate's coefficient of variation (standard deviation over mean), 0 before
   * two samples.
   */
  double rateVariation() {
    double mean = recentRate;
    return Double.isNaN(mean) || mean <= 0 ? 0 : Math.sqrt(recentRateVariance) / mean;
  }

  /** A caller left the queue, whatever the reason, after {@code nanos} in it. */
  void leftQueue(long nanos) {
    queueWaitCount.increment();
    queueWaitTotal.add(nanos);
    queueWaitMax.accumulate(nanos);
  }

  /** A permit whose service time was measured was released (also count it with {@link #released}). */
  void timed(long nanos) {
    timed(nanos, 1, Double.NaN);
  }

  /**
   * As {@link #timed(long)}, for a permit of {@code units}: the recent time is per unit; with the
   * limit in force at the release ({@code NaN}: none, no turnover rate sampled). Without a lock.
   */
  void timed(long nanos, int units, double limit) {
    double perUnit = (double) nanos / Math.max(1, units);
    double recent = recentServiceNanos;
    double updated = Double.isNaN(recent) ? perUnit : recent + RECENT_WEIGHT * (perUnit - recent);
    recentServiceNanos = updated;
    rateSampled(limit, updated);
    timedCount.increment();
    timedTotal.add(nanos);
    serviceMax.accumulate(nanos);
  }

  /** Total service time: exact when every release was timed, else the sampled mean x the count. */
  static long serviceTotal(long releases, long timed, long timedTotalNanos) {
    if (timed >= releases || timed == 0) {
      return timedTotalNanos;
    }
    double estimate = (double) timedTotalNanos / timed * releases;
    return estimate >= Long.MAX_VALUE ? Long.MAX_VALUE : (long) estimate;
  }

  /**
   * Estimated wait before a retry could be admitted: mean service time x (queued ahead + 1) /
   * limit. Before any permit was timed there is no mean; {@code fallbackNanos} stands in.
   */
  long retryAfterNanos(int queuedAhead, int limit, long fallbackNanos) {
    double recent = recentServiceNanos;
    long mean = Double.isNaN(recent) ? fallbackNanos : (long) recent;
    double estimate = (double) mean * (queuedAhead + 1L) / Math.max(1, limit);
    return estimate >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, (long) estimate);
  }
}
