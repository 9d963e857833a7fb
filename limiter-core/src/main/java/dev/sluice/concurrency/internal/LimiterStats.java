package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import java.util.concurrent.atomic.DoubleAdder;
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
   * a few jobs, not diluted by its whole history. The first samples are averaged plainly (the
   * k-th weighs 1/k until that is below the recent weight), so the first job, often the slowest
   * of a cold JVM, counts as one of k, not as nine tenths of the mean for ten jobs. Updated
   * without a lock: two releases at once may lose one sample's update, which moves an average of
   * ten by a tenth at most.
   */
  private volatile double recentServiceNanos = Double.NaN;

  /** Samples in {@link #recentServiceNanos} while fewer than 1 / {@link #RECENT_WEIGHT}. */
  private volatile int recentSamples;

  static final double RECENT_WEIGHT = 0.1;

  /** An expected service time per unit ({@code expected-service-time}), NaN when none. */
  private volatile double seedNanos = Double.NaN;

  /**
   * Per-unit service time of every timed permit, and of its square: the spread of the service
   * time (its coefficient of variation), which sets how far a mean of few samples may be off.
   */
  private final DoubleAdder unitServiceSum = new DoubleAdder();

  private final DoubleAdder unitServiceSquares = new DoubleAdder();

  /**
   * Timed permits still in flight, each weighted by 1 / its units: the sum of the weights and of
   * weight x (admitted at - {@link #origin}). Their elapsed time per unit, a lower bound of their
   * service time per unit, is then now x weights - that sum, in one read of each (see {@link
   * #runningElapsedNanos}). Relative to an origin so that the doubles hold small numbers.
   */
  private final DoubleAdder runningWeights = new DoubleAdder();

  private final DoubleAdder runningAdmittedAt = new DoubleAdder();

  /** Timed permits in flight. */
  private final LongAdder runningTimed = new LongAdder();

  private final long origin;

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

  /** Counters of a limiter that times no running permit (the running lower bound stays 0). */
  LimiterStats() {
    this(0);
  }

  /** @param origin a reading of the limiter's clock: running permits' times are kept from it */
  LimiterStats(long origin) {
    this.origin = origin;
  }

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
    int samples = recentSamples;
    double weight = Math.max(RECENT_WEIGHT, 1.0 / (samples + 1));
    double updated = Double.isNaN(recent) ? perUnit : recent + weight * (perUnit - recent);
    recentServiceNanos = updated;
    if (weight > RECENT_WEIGHT) {
      // still learning the mean: its moves now are estimation, not the turnover's wobble that
      // the margin is for (WaitPrediction's confidence bound covers them)
      recentSamples = samples + 1;
    } else {
      rateSampled(limit, updated);
    }
    unitServiceSum.add(perUnit);
    unitServiceSquares.add(perUnit * perUnit);
    timedCount.increment();
    timedTotal.add(nanos);
    serviceMax.accumulate(nanos);
  }

  /** Sets the expected service time per unit ({@code expected-service-time}); 0 or less: none. */
  void seed(long unitServiceNanos) {
    seedNanos = unitServiceNanos > 0 ? unitServiceNanos : Double.NaN;
  }

  /** The expected service time per unit, NaN when none was given. */
  double seedNanos() {
    return seedNanos;
  }

  /**
   * The squared coefficient of variation of the per-unit service time over every timed permit
   * (variance over squared mean), NaN before two. Sums striped counters.
   */
  double serviceVariation2(long samples) {
    if (samples < 2) {
      return Double.NaN;
    }
    double sum = unitServiceSum.sum();
    double squares = unitServiceSquares.sum();
    if (!(sum > 0)) {
      return Double.NaN;
    }
    // sum((x - mean)^2) / mean^2 = squares / mean^2 - n; over n - 1 for the sample variance
    double mean = sum / samples;
    return Math.max(0, squares / (mean * mean) - samples) / (samples - 1);
  }

  /** A timed permit of {@code units} was granted at {@code admittedAtNanos}. */
  void started(long admittedAtNanos, int units) {
    double weight = 1.0 / Math.max(1, units);
    runningWeights.add(weight);
    runningAdmittedAt.add(weight * (admittedAtNanos - origin));
    runningTimed.increment();
  }

  /** The timed permit of {@link #started} was released. */
  void ended(long admittedAtNanos, int units) {
    double weight = 1.0 / Math.max(1, units);
    runningWeights.add(-weight);
    runningAdmittedAt.add(-weight * (admittedAtNanos - origin));
    runningTimed.decrement();
  }

  /** Timed permits in flight now (see {@link #runningElapsedNanos}). */
  long runningTimed() {
    return Math.max(0, runningTimed.sum());
  }

  /**
   * The time per unit the timed permits in flight have run so far, summed: each is a lower bound
   * of its permit's service time per unit (a censored sample). Reads two striped sums that a
   * release may change between them: clamped at 0, and off by one permit at most.
   */
  double runningElapsedNanos(long now) {
    double weights = runningWeights.sum();
    if (!(weights > 1e-9)) {
      return 0;
    }
    return Math.max(0, weights * (now - origin) - runningAdmittedAt.sum());
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
   * limit. Before any permit was timed the expected service time, if given, or else {@code
   * fallbackNanos} stands in.
   */
  long retryAfterNanos(int queuedAhead, int limit, long fallbackNanos) {
    double recent = recentServiceNanos;
    if (Double.isNaN(recent)) {
      recent = seedNanos; // an expected service time, if one was given
    }
    long mean = Double.isNaN(recent) ? fallbackNanos : (long) recent;
    double estimate = (double) mean * (queuedAhead + 1L) / Math.max(1, limit);
    return estimate >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, (long) estimate);
  }
}
