package dev.sluice.concurrency.limit;

import java.time.Duration;
import java.util.Objects;

/**
 * A limit that holds the CPU at a target utilisation (e.g. 70%): each tick (100 ms) it reads a
 * {@link CpuSampler}, smooths it, and multiplies its real-valued limit by {@code 1 + 0.15 x
 * (target - cpu) / target}, between {@code minLimit} and {@code maxLimit}; the integer limit is
 * dithered around it (see {@link AdaptiveLimit}), so the mean concurrency can be fractional.
 *
 * <p>Why multiplicative: how much CPU one more job costs depends on the job (a CPU-bound job uses
 * a core, a job mostly waiting on storage a sixth of one), so a step in jobs per point of CPU
 * would need tuning per workload. A relative step needs none: it moves 10 jobs or 130 by the same
 * proportion. Why the error is a difference and not a ratio: a controller that multiplies by
 * {@code (target / cpu) ^ gain} settles where the <em>geometric</em> mean of the samples is the
 * target, and on 2 cores, where one tick sees 50% or 100%, that put the arithmetic mean at 76%
 * in the simulation; with the difference the fixed point is the arithmetic mean.
 *
 * <p>It grows only while the limit is used (callers queued, or every permit taken): an idle
 * service has a low CPU because nobody asks, and a limit grown then would let a burst through
 * at once (the same reason concurrency-limits' gradient must not grow on an unused limit).
 *
 * <p>It stops growing when growth buys no CPU: if, with every permit taken, the permits held
 * (averaged over about a second) have doubled since the last check and the CPU (averaged alike)
 * has risen by less than a quarter as much, relatively, and by less than a quarter of its gap to
 * the target, the target is out of reach for now (neighbours hold the cores, or the jobs wait on
 * something else). The limit then holds instead of winding up to its ceiling; a rise of the CPU,
 * or a reading over the target, lets it move again. Simulated (CpuLimitStepTest, 200 ms jobs),
 * a neighbour holding half the cores for 20 s grew the limit from 1.2 to 61 (2 cores) and from
 * 5.4 to 170 (8 cores) without the check; with it, to 4.3 and 14, and the CPU is back in its
 * band within 2 s of the neighbour leaving (on 2 cores: 2-second means within 10 points). Not
 * judged while permits are free although callers wait: with declared costs, a limit in units
 * below the cost of the job at the head buys no CPU until it passes that cost, and holding it
 * there would starve costly jobs (simulated on 8 cores: the CPU stayed at 12.5%, one job). So
 * with costs the limit can still wind up (from 92 to its ceiling of 1000, simulated); keep
 * {@code maxLimit} near what the machine can run there, or read the machine's CPU ({@link
 * CpuSampler#machine()}), in which a neighbour's load counts and the limit gives way.
 *
 * <p>Step response (simulated server, virtual time, CpuLimitStepTest): after a step from 1x to
 * 10x of capacity and back, with the overload costing CPU of its own outside the limit (15 points
 * at 10x), every later 1-second reading is within 5 points of the target within 2 s. The signal
 * is read every 100 ms, the resolution of a {@code /proc}-based reading; nothing here assumes a
 * finer one.
 *
 * <pre>{@code
 * ConcurrencyLimiter.of("transcode", LimiterSpec.custom()
 *     .maxConcurrency(64)
 *     .limit(LimitSpec.cpu(0.7))
 *     .build());
 * }</pre>
 */
public final class CpuLimit extends AdaptiveLimit {

  /** Default target utilisation. */
  public static final double DEFAULT_TARGET_CPU = 0.70;

  /** Default lower bound. */
  public static final int DEFAULT_MIN_LIMIT = 1;

  /** Default ceiling. */
  public static final int DEFAULT_MAX_LIMIT = 1000;

  /** Default controller period. */
  public static final Duration DEFAULT_TICK = Duration.ofMillis(100);

  /**
   * The part of the relative error corrected per tick: {@code limit x (1 + GAIN x (target -
   * cpu) / target)}. Small, because what a change of the limit does is seen only as jobs start
   * and end; with 100 ms ticks it still moves the limit by up to x4 a second when idle. A loop
   * that corrects a share g of its error per tick and sees the effect d ticks late rings once g
   * nears about 1/d; 800 ms jobs make d about 8, so 0.15 is near the largest gain that keeps the
   * {@code sizes} mix steady. A decrease gain raised while the excess lasts was tried on the
   * simulated server: after a step it settled later, not sooner, because a smaller limit shows in
   * the CPU only as running jobs end, and the faster decrease overshoots below the target.
   */
  static final double GAIN = 0.15;

  /**
   * The longest mean service time {@link #GAIN} was chosen for. Jobs longer than that see the
   * gain scaled down by {@code GAIN_TUNED_FOR / mean service time}, by the same rule of about
   * 1/d: a limit changed per tick as fast for 3-second jobs (a transcode in a child process, a
   * core each) swings from its floor to twice the target within one job, and the floor cuts the
   * swings down but not up: simulated on 2 cores, the mean sat at 75% for a 70% target (and at
   * 87% before the permits held, not the published limit, were dithered; 83% measured with
   * ffmpeg).
   */
  static final Duration GAIN_TUNED_FOR = Duration.ofMillis(800);

  /** Weight of each finished job in the mean service time that scales the gain. */
  static final double SERVICE_WEIGHT = 0.1;

  private static final double TUNED_FOR_NANOS = GAIN_TUNED_FOR.toNanos();

  /**
   * Weight of the newest sample in the smoothed CPU the controller acts on. On 2 cores one tick
   * sees 50% or 100% and little between; half-and-half smoothing steadies the limit at the cost of
   * about one tick of lag (chosen on the simulated server, see CpuLimitSimulationTest).
   */
  static final double SMOOTHING = 0.5;

  /** The per-tick step is clamped to [1/MAX_STEP, MAX_STEP] (a very low target). */
  static final double MAX_STEP = 2.0;

  /**
   * Weight per tick of the slow averages of CPU and permits held that tell whether growth buys
   * CPU: about a second, longer than a job's start takes to show in the CPU and the smoothing's
   * lag, so a limit that is paying off is not stopped before its effect is seen.
   */
  static final double RESPONSE_WEIGHT = 0.1;

  /**
   * How far the permits held may grow past where the CPU last rose before growth stops: twice as
   * many (and at least 2 more), by when a CPU-bound job mix would have doubled its CPU.
   */
  static final double UNANSWERED_GROWTH = 2.0;

  /**
   * How much of the permits' relative rise the CPU's must show for growth to count as paying:
   * a quarter. A CPU-bound mix shows all of it, a mix mostly waiting on storage less but still
   * in proportion; a neighbour holding the cores, none.
   */
  static final double RESPONSE_SHARE = 0.25;

  private final double targetCpu;
  private final CpuSampler sampler;

  /** The smoothed CPU the controller acts on, for {@link #state()}; NaN until the first sample. */
  private volatile double smoothedCpu = Double.NaN;

  // the mean service time of finished jobs, exponentially weighted; NaN until the first. Updated
  // by request threads without a lock: a lost update of a mean that scales a gain costs nothing
  private volatile double meanServiceNanos = Double.NaN;

  // the growth check's state; touched by the tick only (under the AdaptiveLimit's monitor)
  private double slowCpu = Double.NaN;
  private double slowHeld = Double.NaN;
  // the slow averages when the CPU last rose (or growth began); NaN while not growing
  private double anchorCpu = Double.NaN;
  private double anchorHeld = Double.NaN;

  private CpuLimit(Builder b, CpuSampler sampler) {
    super(b);
    this.targetCpu = b.targetCpu;
    this.sampler = sampler;
  }

  /** Starts building a CPU limit with the defaults above and {@link CpuSampler#machine()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** The target utilisation, 0 to 1. */
  public double targetCpu() {
    return targetCpu;
  }

  @Override
  protected double adjust(double current, Control control) {
    double cpu = sampler.sample();
    if (!(cpu >= 0)) {
      return current; // NaN or negative: nothing measured, hold
    }
    cpu = Math.min(1.0, cpu);
    double previous = smoothedCpu;
    cpu = Double.isNaN(previous) ? cpu : previous + SMOOTHING * (cpu - previous);
    smoothedCpu = cpu;
    int held = control.inFlight();
    slowCpu = Double.isNaN(slowCpu) ? cpu : slowCpu + RESPONSE_WEIGHT * (cpu - slowCpu);
    slowHeld = Double.isNaN(slowHeld) ? held : slowHeld + RESPONSE_WEIGHT * (held - slowHeld);
    double step = 1 + gain() * (targetCpu - cpu) / targetCpu;
    step = Math.max(1 / MAX_STEP, Math.min(MAX_STEP, step));
    if (step <= 1) {
      anchorCpu = Double.NaN; // at or over the target: a later growth starts a new check
      return current * step;
    }
    boolean full = full(current, held);
    if (!(full || control.queued() > 0) || !growthPaysOff(full)) {
      return current; // not used (see used()), or growth does not pay
    }
    return current * step;
  }

  /**
   * Whether growing still buys CPU (see the class comment): false once the permits held have
   * doubled since the last check and the CPU has not risen by a quarter as much, relatively.
   */
  private boolean growthPaysOff(boolean full) {
    if (Double.isNaN(anchorCpu) || slowHeld <= anchorHeld || !full) {
      anchorCpu = slowCpu; // (again) the start of a growth: judge from here
      anchorHeld = slowHeld;
      return true;
    }
    // a reading taken at a passing peak (a job's CPU phase) must not become the bar
    anchorCpu = Math.min(anchorCpu, slowCpu);
    double from = Math.max(1, anchorHeld);
    if (slowHeld < Math.max(UNANSWERED_GROWTH * from, from + 2)) {
      return true; // not grown enough to judge yet
    }
    double heldRise = slowHeld / from - 1;
    double cpuRise = anchorCpu > 0 ? slowCpu / anchorCpu - 1 : Double.POSITIVE_INFINITY;
    // relatively (a CPU-bound mix, many cores), or by a quarter of the gap (a neighbour's share
    // in the machine's CPU dilutes the relative rise of this process's part)
    if (cpuRise >= RESPONSE_SHARE * heldRise
        || slowCpu - anchorCpu >= RESPONSE_SHARE * (targetCpu - anchorCpu)) {
      anchorCpu = slowCpu; // it paid: judge the next doubling from here
      anchorHeld = slowHeld;
      return true;
    }
    return false;
  }

  /** {@link #GAIN}, scaled down for jobs longer than {@link #GAIN_TUNED_FOR}. */
  double gain() {
    double mean = meanServiceNanos;
    return mean > TUNED_FOR_NANOS ? GAIN * TUNED_FOR_NANOS / mean : GAIN;
  }

  /**
   * Moves the mean service time a tenth of the way to this job's. A job no longer than {@link
   * #GAIN_TUNED_FOR} while the mean is within it too cannot change {@link #gain()} (both stay at
   * or under the tuned time), so it writes nothing: the release path of short jobs, the common
   * case, then shares no written field between the threads that finish them. The mean keeps the
   * value it had when it last mattered, and a run of longer jobs moves it from there.
   */
  @Override
  public void onSample(long serviceNanos, int inFlight) {
    if (serviceNanos <= 0) {
      return;
    }
    double mean = meanServiceNanos;
    if (serviceNanos <= TUNED_FOR_NANOS && mean <= TUNED_FOR_NANOS) {
      return; // false while no job has finished (NaN): the first one is always kept
    }
    meanServiceNanos =
        Double.isNaN(mean) ? serviceNanos : mean + SERVICE_WEIGHT * (serviceNanos - mean);
  }

  /** Whether demand reaches the limit: someone queued, or every permit taken. */
  static boolean used(double current, Control control) {
    return control.queued() > 0 || full(current, control.inFlight());
  }

  /** Whether every permit of the real-valued limit {@code current} is taken. */
  private static boolean full(double current, int held) {
    return held >= Math.floor(current);
  }

  @Override
  public LimitState state() {
    return new LimitState(
        "cpu",
        limit(),
        exactLimit(),
        minLimit(),
        maxLimit(),
        smoothedCpu,
        targetCpu,
        Double.NaN,
        Double.NaN);
  }

  @Override
  public String toString() {
    return "CpuLimit[target=" + targetCpu + ", sampler=" + sampler + ", limit=" + limit()
        + ", exact=" + exactLimit() + "]";
  }

  /** Configures a {@link CpuLimit}; every setter validates at once, naming the setting. */
  public static final class Builder extends AdaptiveLimit.Builder<Builder> {
    private double targetCpu = DEFAULT_TARGET_CPU;
    private CpuSampler sampler;

    private Builder() {
      super(DEFAULT_TICK);
    }

    /** Target utilisation, strictly between 0 and 1; default 0.70. */
    public Builder targetCpu(double target) {
      if (!(target > 0 && target < 1)) {
        throw new IllegalArgumentException("targetCpu must be > 0 and < 1 but was " + target);
      }
      this.targetCpu = target;
      return this;
    }

    /** Where the CPU is read; default {@link CpuSampler#machine()}. */
    public Builder sampler(CpuSampler s) {
      this.sampler = Objects.requireNonNull(s, "sampler must not be null");
      return this;
    }

    /**
     * Default initial limit: {@code round(targetCpu x available processors)}, right for CPU-bound
     * jobs; the controller moves from there.
     */
    @Override
    protected int defaultInitialLimit() {
      return (int) Math.max(1, Math.round(targetCpu * Runtime.getRuntime().availableProcessors()));
    }

    /** A new limit; one per limiter. */
    public CpuLimit build() {
      checkBounds();
      // a sampler keeps its previous reading: each limit built gets its own
      return new CpuLimit(this, sampler == null ? CpuSampler.machine() : sampler);
    }
  }
}
