package dev.sluice.concurrency.limit;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * A limit that follows service time (the gradient idea of Netflix's Gradient2 and Envoy's
 * adaptive concurrency filter), for services that are not CPU-bound: it grows while the mean
 * service time stays within {@code tolerance} x its no-load baseline, and shrinks in proportion
 * when it rises above.
 *
 * <p>Each tick it closes a window of at least {@value #MIN_WINDOW_SAMPLES} released permits (a
 * tick with fewer carries them over), compares the window's mean service time with the baseline,
 * and then:
 *
 * <ul>
 *   <li>above {@code tolerance x baseline}: limit x {@code max(0.5, tolerance x baseline / mean)};
 *   <li>within it, and the limit was used in the window (a release found every permit taken, or
 *       callers queued): limit + {@code sqrt(limit)};
 *   <li>otherwise it holds.
 * </ul>
 *
 * <p>Where the peers went wrong, and what this does instead:
 *
 * <ul>
 *   <li>concurrency-limits PR#134: Gradient2 adds the queue length to the limit on every update,
 *       so under modest overload (gradient about 0.8) the queue alone grows the limit without end.
 *       Here nothing is added while the service time is above tolerance, and nothing at all while
 *       the limit is not used: an idle limit is not evidence that more would be fine.
 *   <li>concurrency-limits #176: dropped requests report near-zero latency and drag the estimate
 *       down. Here only released permits are samples: a caller rejected, timed out or cancelled in
 *       the queue never held one, and its wait is never part of a service time. A window is a
 *       mean of many samples, and the baseline moves half-way to a lower window, so one odd
 *       sample cannot reset it.
 *   <li>envoy#9038: Envoy re-measures its baseline (minRTT) by pinning concurrency to a minimum
 *       for a while, which rejects bursts of requests every interval. Here the baseline is never
 *       re-measured on purpose: it follows lower windows at once, rises very slowly (about 1/600
 *       of the gap per second) so a service that became slower for good is eventually re-learnt,
 *       and re-learns quickly when the limit is already at its minimum, where the samples are as
 *       unloaded as they will get. The price of the slow rise: under overload sustained for
 *       minutes the baseline, and so the limit, creeps up (about 5% a minute at tolerance 1.5).
 * </ul>
 *
 * <p>Limits: it sees service time only, so it cannot tell a slower dependency from its own
 * overload; CPU-bound work is better held by {@link CpuLimit}. A workload whose job sizes vary
 * widely makes the window mean noisy; larger windows (longer ticks) steady it.
 */
public final class LatencyLimit extends AdaptiveLimit {

  /** Default service-time tolerance over the no-load baseline. */
  public static final double DEFAULT_TOLERANCE = 1.5;

  /** Default lower bound. */
  public static final int DEFAULT_MIN_LIMIT = 1;

  /** Default ceiling. */
  public static final int DEFAULT_MAX_LIMIT = 1000;

  /**
   * Default limit before the first window: 1, so that the first windows measure service time
   * unloaded (a baseline learnt at a limit already past the knee would be too high for good).
   */
  public static final int DEFAULT_INITIAL_LIMIT = 1;

  /** Default controller period. */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(200);

  /** A window closes once it holds at least this many samples. */
  static final int MIN_WINDOW_SAMPLES = 8;

  /**
   * How slowly the baseline rises towards a higher mean: by the window's share of this time, i.e.
   * about 1/600 of the gap per second.
   */
  static final long BASELINE_RISE_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(10);

  /** The part of the gap it moves towards a lower mean, or any mean while at the minimum. */
  static final double BASELINE_FOLLOW = 0.5;

  /** The largest shrink per window. */
  static final double MIN_GRADIENT = 0.5;

  private final double tolerance;

  // written on the release path: striped, so releasers on different cores do not contend
  private final LongAdder windowTotal = new LongAdder();
  private final LongAdder windowCount = new LongAdder();

  /** A release found every permit taken since the last tick; racy by design, only ever set. */
  private volatile boolean reached;

  // the controller's own, under the monitor
  private long pendingTotal;
  private long pendingCount;
  private boolean usedInWindow;
  private long windowStart;
  private volatile double baselineNanos = Double.NaN;
  private volatile double lastMeanNanos = Double.NaN;

  private LatencyLimit(Builder b) {
    super(b);
    this.tolerance = b.tolerance;
  }

  /** Starts building a latency limit with the defaults above. */
  public static Builder builder() {
    return new Builder();
  }

  @Override
  public void onSample(long serviceNanos, int inFlight) {
    if (serviceNanos < 0) {
      return;
    }
    windowTotal.add(serviceNanos);
    windowCount.increment();
    // inFlight is counted after this release: + 1 is what was held while it ran
    if (!reached && inFlight + 1 >= limit()) {
      reached = true;
    }
  }

  @Override
  protected double adjust(double current, Control control) {
    pendingCount += windowCount.sumThenReset();
    pendingTotal += windowTotal.sumThenReset();
    if (reached || CpuLimit.used(current, control)) {
      reached = false;
      usedInWindow = true;
    }
    long now = control.clock().nanoTime();
    if (pendingCount == 0) {
      windowStart = now;
    }
    if (pendingCount < MIN_WINDOW_SAMPLES) {
      return current; // too few to judge: keep collecting
    }
    double rise = Math.min(1.0, (double) (now - windowStart) / BASELINE_RISE_NANOS);
    windowStart = now;
    double mean = (double) pendingTotal / pendingCount;
    boolean used = usedInWindow;
    pendingTotal = 0;
    pendingCount = 0;
    usedInWindow = false;
    lastMeanNanos = mean;
    double baseline = baselineNanos;
    if (Double.isNaN(baseline)) {
      baseline = mean;
    } else if (mean < baseline || current <= minLimit()) {
      baseline += (mean - baseline) * BASELINE_FOLLOW;
    } else {
      baseline += (mean - baseline) * rise;
    }
    baselineNanos = baseline;
    double threshold = baseline * tolerance;
    if (mean > threshold) {
      return current * Math.max(MIN_GRADIENT, threshold / mean);
    }
    return used ? current + Math.max(1.0, Math.sqrt(current)) : current;
  }

  @Override
  public LimitState state() {
    return new LimitState(
        "latency",
        limit(),
        exactLimit(),
        minLimit(),
        maxLimit(),
        Double.NaN,
        Double.NaN,
        lastMeanNanos / 1e6,
        baselineNanos * tolerance / 1e6);
  }

  @Override
  public String toString() {
    return "LatencyLimit[tolerance=" + tolerance + ", limit=" + limit() + ", exact=" + exactLimit()
        + ", baselineNanos=" + baselineNanos + "]";
  }

  /** Configures a {@link LatencyLimit}; every setter validates at once, naming the setting. */
  public static final class Builder extends AdaptiveLimit.Builder<Builder> {
    private double tolerance = DEFAULT_TOLERANCE;

    private Builder() {
      super(DEFAULT_TICK);
    }

    /**
     * How far above its no-load baseline the mean service time may rise before the limit shrinks,
     * greater than 1; default 1.5.
     */
    public Builder tolerance(double t) {
      if (!(t > 1 && t < 100)) {
        throw new IllegalArgumentException("tolerance must be > 1 and < 100 but was " + t);
      }
      this.tolerance = t;
      return this;
    }

    /** Default initial limit: {@value LatencyLimit#DEFAULT_INITIAL_LIMIT}. */
    @Override
    protected int defaultInitialLimit() {
      return DEFAULT_INITIAL_LIMIT;
    }

    /** A new limit; one per limiter. */
    public LatencyLimit build() {
      checkBounds();
      return new LatencyLimit(this);
    }
  }
}
