package dev.sluice.concurrency.limit;

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
 * tick publishes {@code floor(value)}, or one more while the permits actually held have stayed,
 * on average, below the real value (sigma-delta on occupancy): the error {@code value - inFlight}
 * is summed tick by tick, and the extra permit is open only while the sum is positive. So what is
 * held averages the real value whatever the jobs' length. Dithering the published number alone
 * (1.4 as 1, 2, 1, 2, ...) does not: a job started in a tick of 2 holds its permit for its whole
 * length, so with jobs of several seconds the second permit was nearly always held, and 1.4
 * became about 1.8 (measured with ffmpeg jobs on 2 cores: 83% CPU for a 70% target). The sum is
 * bounded: at most one tick's worth of credit (an idle limiter earns no burst), and at most
 * {@link #DEBT_WINDOW} of one permit held too many as debt, so a limit that shrank while longer
 * jobs drained is not held under its value for long afterwards.
 *
 * <p><b>Threads.</b> {@link #limit()} is one volatile read (the fast path's). The controller
 * fields are touched by the tick and by {@link #setLimit} (an operator's change) under this
 * object's monitor: both are rare, and neither runs on the request path.
 *
 * <p><b>Writing a strategy.</b> Extend this class and implement {@link #adjust}: it gets the
 * current real-valued limit and the limiter's {@link LimitSource.Control} (in-flight, queued) and
 * returns the next one; samples of service time arrive through {@link #onSample}. Bounds, ticks,
 * dithering, start and stop are done here. An AIMD limit, for instance:
 *
 * <pre>{@code
 * final class AimdLimit extends AdaptiveLimit {
 *   private final AtomicBoolean slow = new AtomicBoolean();
 *   AimdLimit(int max) { super(1, max, 1, Duration.ofMillis(100)); }
 *   @Override public void onSample(long serviceNanos, int inFlight) {
 *     if (serviceNanos > 50_000_000) slow.set(true);
 *   }
 *   @Override protected double adjust(double current, Control control) {
 *     return slow.getAndSet(false) ? current * 0.9 : current + 1;
 *   }
 * }
 * }</pre>
 *
 * Hand it to a limiter in its spec, with {@link LimitSpec#of}: {@code
 * LimiterSpec.custom().limit(LimitSpec.of("aimd", (max, startAt) -> new AimdLimit(max)))}. The
 * factory builds a fresh source whenever the limiter moves to this limit.
 */
public abstract class AdaptiveLimit implements LimitSource {

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
  // the sum of (real-valued limit - permits held) over the ticks, bounded (see the class comment)
  private double carry;

  private Control control;
  private volatile Scheduler.Cancellable nextTick;
  private volatile boolean stopped;

  /**
   * A limit between {@code minLimit} and {@code maxLimit} (both at least 1, min not above max),
   * starting at {@code initialLimit} (clamped to the bounds), adjusted every {@code tick} (10 ms to
   * 10 s).
   */
  protected AdaptiveLimit(int minLimit, int maxLimit, int initialLimit, Duration tick) {
    this(
        requireAtLeast("minLimit", minLimit, 1),
        requireAtLeast("maxLimit", maxLimit, 1),
        requireAtLeast("initialLimit", initialLimit, 1),
        requireTick(tick).toNanos(),
        true);
    requireBounds(minLimit, maxLimit);
  }

  /** From a checked {@link Builder}. */
  protected AdaptiveLimit(Builder<?> bounds) {
    this(bounds.minLimit, bounds.maxLimit, bounds.initialLimit(), bounds.tick.toNanos(), true);
  }

  @SuppressWarnings("UnusedVariable") // 'checked' only tells this constructor from the public one
  private AdaptiveLimit(
      int minLimit, int maxLimit, int initialLimit, long tickNanos, boolean checked) {
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
  protected abstract double adjust(double current, Control control);

  @Override
  public final int limit() {
    return limit;
  }

  /** The controller's real-valued limit. */
  @Override
  public final double exactLimit() {
    return exactLimit;
  }

  /**
   * The limit and its bounds, named after the class ({@code AimdLimit}: {@code aimd}); a strategy
   * with a signal and a target overrides it to show them.
   */
  @Override
  public LimitState state() {
    String name = getClass().getSimpleName();
    if (name.endsWith("Limit") && name.length() > "Limit".length()) {
      name = name.substring(0, name.length() - "Limit".length());
    }
    return new LimitState(
        name.toLowerCase(java.util.Locale.ROOT),
        limit(),
        exactLimit(),
        minLimit(),
        maxLimit(),
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN);
  }

  /** The lower bound. */
  public final int minLimit() {
    return Math.min(minLimit, maxLimit);
  }

  /** The ceiling ({@code max-concurrency}). */
  public final int maxLimit() {
    return maxLimit;
  }

  /** Sets the ceiling ({@code max-concurrency}); the limit falls to it at once if above. */
  @Override
  public final synchronized void setLimit(int ceiling) {
    maxLimit = requireAtLeast("maxConcurrency", ceiling, 1);
    publish(exactLimit, -1);
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

  static int requireAtLeast(String setting, int value, int min) {
    if (value < min) {
      throw new IllegalArgumentException(setting + " must be >= " + min + " but was " + value);
    }
    return value;
  }

  static Duration requireTick(Duration d) {
    Objects.requireNonNull(d, "tick must not be null");
    if (d.compareTo(Duration.ofMillis(10)) < 0 || d.compareTo(Duration.ofSeconds(10)) > 0) {
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
        publish(adjust(exactLimit, control), control.inFlight());
        after = limit;
      }
      if (after != before) {
        control.limitChanged();
      }
    } finally {
      schedule(); // a throwing sampler must not stop the controller for good
    }
  }

  /**
   * How much holding one permit too many the dithering still pays back: a dithered extra permit
   * taken by a job that runs this long is made up for in full; beyond, the excess is forgotten.
   * Ten seconds covers the long jobs a concurrency limit guards (a transcode, a report); a limit
   * that shrank while its running jobs drained is held at its floor for at most about as long.
   */
  static final Duration DEBT_WINDOW = Duration.ofSeconds(10);

  /**
   * Clamps, dithers and publishes a new real-valued limit. {@code inFlight}: the permits held at
   * this tick, or -1 when not a tick (an operator's change, which moves no occupancy). Caller holds
   * the monitor.
   */
  private void publish(double next, int inFlight) {
    int ceiling = maxLimit;
    int floor = Math.min(minLimit, ceiling);
    double clamped = Double.isNaN(next) ? exactLimit : Math.max(floor, Math.min(ceiling, next));
    int below = (int) Math.floor(clamped);
    if (inFlight >= 0) {
      // up to the dithered extra permit (whose job runs on after it closes): permits held beyond
      // it are jobs still draining after the limit shrank, which the controller sees in its signal
      double held = Math.min(inFlight, below + 1);
      double debt = (double) DEBT_WINDOW.toNanos() / tickNanos;
      carry = Math.max(-debt, Math.min(1.0, carry + clamped - held));
    }
    int whole = clamped > below && carry > 0 ? below + 1 : below;
    exactLimit = clamped;
    limit = Math.max(floor, Math.min(ceiling, whole));
  }

  /**
   * The bounds every adaptive limit has, set the same way for each: {@code minLimit}, {@code
   * maxLimit}, {@code initialLimit}, {@code tick}. Each setter validates at once, naming the
   * setting; {@link #checkBounds()} checks them together.
   *
   * @param <B> the concrete builder, so setters chain
   */
  public abstract static class Builder<B extends Builder<B>> {
    private int minLimit = 1;
    private int maxLimit = 1000;
    private int initialLimit = -1;
    private Duration tick;

    /** A builder with this tick by default. */
    protected Builder(Duration defaultTick) {
      this.tick = requireTick(defaultTick);
    }

    @SuppressWarnings("unchecked")
    private B self() {
      return (B) this;
    }

    /** Lower bound, at least 1; default 1. */
    public B minLimit(int n) {
      this.minLimit = requireAtLeast("minLimit", n, 1);
      return self();
    }

    /** Ceiling, at least 1 (and at least {@code minLimit} when built); default 1000. */
    public B maxLimit(int n) {
      this.maxLimit = requireAtLeast("maxLimit", n, 1);
      return self();
    }

    /** The limit before the first tick, clamped to the bounds; default: the strategy's. */
    public B initialLimit(int n) {
      this.initialLimit = requireAtLeast("initialLimit", n, 1);
      return self();
    }

    /** Controller period, 10 ms to 10 s. */
    public B tick(Duration d) {
      this.tick = requireTick(d);
      return self();
    }

    /** The initial limit set, or the strategy's default when none was. */
    protected final int initialLimit() {
      return initialLimit > 0 ? initialLimit : defaultInitialLimit();
    }

    /** The strategy's initial limit when none is set. */
    protected abstract int defaultInitialLimit();

    /** Throws when {@code minLimit > maxLimit}; call it in {@code build()}. */
    protected final void checkBounds() {
      requireBounds(minLimit, maxLimit);
    }
  }
}
