package dev.sluice.concurrency.limit;

import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;

/**
 * Where the number of permits comes from: a public strategy, described in a limiter's spec by a
 * {@link LimitSpec} ({@link LimitSpec#of} for your own). {@link #fixed(int)} is the default: the
 * limit changes only through {@link dev.sluice.concurrency.ConcurrencyLimiter#reconfigure}. An
 * adaptive source (CPU target,
 * latency gradient) learns from {@link #onSample} and from its own signals, and changes its limit
 * from a task on the limiter's {@link Scheduler}, never on the request path.
 *
 * <p>One instance serves one limiter; do not share it.
 */
public interface LimitSource {

  /** What the limiter offers the source when it starts. */
  interface Control {

    /** The limiter's name, for messages. */
    String name();

    /** The limiter's clock. */
    NanoClock clock();

    /** The limiter's scheduler: where an adaptive source runs its controller. */
    Scheduler scheduler();

    /** Permits held right now. */
    int inFlight();

    /** Callers waiting right now. */
    int queued();

    /**
     * Tells the limiter the limit has changed: if it grew, waiters are granted at once. Call it
     * after every change of {@link #limit()}; shrinking revokes nothing, in-flight drains.
     */
    void limitChanged();
  }

  /** A limit that changes only when told to; {@code limit} at least 1. */
  static LimitSource fixed(int limit) {
    return new FixedLimit(limit);
  }

  /**
   * A limit that holds the machine's CPU ({@link CpuSampler#machine()}) at {@code targetCpu}
   * (strictly between 0 and 1), with {@link CpuLimit}'s defaults; {@link CpuLimit#builder()} sets
   * the rest.
   */
  static CpuLimit cpu(double targetCpu) {
    return CpuLimit.builder().targetCpu(targetCpu).build();
  }

  /**
   * A limit that grows while service time stays near its no-load baseline and shrinks when it
   * rises, with {@link LatencyLimit}'s defaults; {@link LatencyLimit#builder()} sets the rest.
   */
  static LatencyLimit latency() {
    return LatencyLimit.builder().build();
  }

  /**
   * The current limit, at least 1. Read on every fast-path acquire: must be a plain volatile read,
   * no computation.
   */
  int limit();

  /**
   * The limit as the controller means it, for predictions (a predicted wait divides by it): an
   * adaptive source's real-valued limit, of which {@link #limit()} is the dithered integer. Not on
   * the fast path. By default the integer limit.
   */
  default double exactLimit() {
    return limit();
  }

  /**
   * Sets the limit from configuration or an operator (a new {@code maxConcurrency} through {@link
   * dev.sluice.concurrency.ConcurrencyLimiter#reconfigure}), at least 1. For a fixed source
   * this is the limit; for an adaptive one the ceiling.
   */
  void setLimit(int limit);

  /**
   * Called once, when the limiter is built, before any permit is handed out. An adaptive source
   * schedules its controller here.
   */
  default void start(Control control) {}

  /** A permit was held for {@code serviceNanos}, with {@code inFlight} permits taken at its release. */
  default void onSample(long serviceNanos, int inFlight) {}

  /**
   * Called once when the limiter shuts down, or when the limiter moves to another source ({@link
   * dev.sluice.concurrency.ConcurrencyLimiter#reconfigure} with another limit): stop any scheduled
   * work.
   */
  default void stop() {}

  /**
   * What the limit is and, for an adaptive source, what it decides from (measured CPU or service
   * time, and the target), for {@link dev.sluice.concurrency.ConcurrencySnapshot#limitState()},
   * dashboards and gauges.
   * Not on the request path; may allocate.
   */
  default LimitState state() {
    return LimitState.fixed(limit());
  }
}
