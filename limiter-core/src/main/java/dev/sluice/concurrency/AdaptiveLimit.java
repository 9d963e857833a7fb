package dev.sluice.concurrency;

import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.Objects;

/**
 * The machinery shared by the adaptive limits: a controller run every tick on the limiter's
 * scheduler, a real-valued limit kept between bounds, and the integer limit the fast path reads.
 *
 * <p><b>Why the integer limit is dithered.</b> The ideal concurrency is rarely whole: 70% of 2
 * cores is 1.4 CPU-bound jobs. A limit rounded once and for all holds 1 or 2, i.e. 50% or 100%
 * (the demo's static {@code auto} measured 62%). Here the controller keeps a real value and each
 * tick publishes {@code round(value + carry)}, carrying the rounding error to the next tick (error
 * diffusion): 1.4 becomes 1, 2, 1, 2, 1, ... whose mean is 1.4, and the controller's feedback
 * corrects what the job lengths make of it.
 *
 * <p><b>Threads.</b> {@link #limit()} is one volatile read (the fast path's). The controller
 * fields are touched by the tick and by {@link #setLimit} (an operator's change) under this
 * object's monitor: both are rare, and neither runs on the request path.
 */
abstract class AdaptiveLimit implements LimitSource {

  private final long tickNanos;
  private final int minLimit;
  private final double initialLimit;

  /** What the fast path reads. */
  private volatile int limit;

  /** The ceiling: {@code max-concurrency}. */
  private volatile int maxLimit;

  /** The controller's output, between the bounds; volatile only so state() can read it. */
  private volatile double exactLimit;

  /** The rounding error carried to the next tick; under the monitor. */
  private double carry;

  private Control control;
  private volatile Scheduler.Cancellable nextTick;
  private volatile boolean stopped;

  AdaptiveLimit(int minLimit, int maxLimit, int initialLimit, long tickNanos) {
    this.minLimit = minLimit;
    this.maxLimit = maxLimit;
    this.tickNanos = tickNanos;
    this.initialLimit = Math.max(minLimit, Math.min(maxLimit, initialLimit));
    this.exactLimit = this.initialLimit;
    this.limit = (int) this.initialLimit;
  }

  /**
   * One controller step: the next real-valued limit from the current one, or {@code current} to
   * hold. Called on the scheduler's thread under this object's monitor; must not block.
   */
  abstract double adjust(double current, Control control);

  @Override
  public final int limit() {
    return limit;
  }

  /** The controller's real-valued limit. */
  final double exactLimit() {
    return exactLimit;
  }

  final int minLimit() {
    return Math.min(minLimit, maxLimit);
  }

  final int maxLimit() {
    return maxLimit;
  }

  /** Sets the ceiling ({@code max-concurrency}); the limit falls to it at once if above. */
  @Override
  public final synchronized void setLimit(int ceiling) {
    maxLimit = LimiterBuilder.requireAtLeast("maxConcurrency", ceiling, 1);
    publish(exactLimit);
  }

  @Override
  public final void start(Control control) {
    if (this.control != null) {
      throw new IllegalStateException("one limit source serves one limiter; this one already "
          + "serves '" + this.control.name() + "'");
    }
    this.control = control;
    schedule();
  }

  @Override
  public final void stop() {
    stopped = true;
    Scheduler.Cancellable handle = nextTick;
    if (handle != null) {
      handle.cancel();
    }
  }

  private void schedule() {
    if (!stopped) {
      nextTick = control.scheduler().schedule(this::tick, tickNanos);
      if (stopped) {
        nextTick.cancel(); // stop() ran between the check and the write: it may have missed it
      }
    }
  }

  static Duration requireTick(Duration d) {
    Objects.requireNonNull(d, "tick must not be null");
    if (d.compareTo(Duration.ofMillis(10)) < 0
        || d.compareTo(Duration.ofSeconds(10)) > 0) {
      throw new IllegalArgumentException("tick must be between 10ms and 10s but was " + d);
    }
    return d;
  }

  static void requireBounds(int minLimit, int maxLimit) {
    if (minLimit > maxLimit) {
      throw new IllegalArgumentException(
          "minLimit must be <= maxLimit but was " + minLimit + " > " + maxLimit);
    }
  }

  /** One controller step, then the next tick; package-private so tests can step it. */
  final void tick() {
    if (stopped) {
      return;
    }
    int before;
    int after;
    try {
      synchronized (this) {
        before = limit;
        publish(adjust(exactLimit, control));
        after = limit;
      }
      if (after != before) {
        control.limitChanged();
      }
    } finally {
      schedule(); // a throwing sampler must not stop the controller for good
    }
  }

  /** Clamps, dithers and publishes a new real-valued limit. Caller holds the monitor. */
  private void publish(double next) {
    int ceiling = maxLimit;
    int floor = Math.min(minLimit, ceiling);
    double clamped = Double.isNaN(next) ? exactLimit : Math.max(floor, Math.min(ceiling, next));
    double wanted = clamped + carry;
    int whole = (int) Math.max(floor, Math.min(ceiling, Math.round(wanted)));
    // bounded: at a bound the carry could otherwise grow without end
    carry = Math.max(-1.0, Math.min(1.0, wanted - whole));
    exactLimit = clamped;
    limit = whole;
  }
}
