package dev.sluice.concurrency;

import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.CpuSampler;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;

/**
 * A model of an N-core machine serving jobs through a limiter, in virtual time: running jobs
 * share the cores (processor sharing: with more computing than cores, each progresses at
 * cores / computing), a job may also wait without CPU (storage), and the CPU a sampler reads is
 * the model's own. Clients arrive open-loop (exponential gaps, seeded) and never retry.
 *
 * <p>Steps of {@link #STEP} by default (jobs last 45 ms or more; 1 ms for 20 ms jobs): advance virtual time (limiter ticks,
 * timeouts, re-checks run), move
 * jobs on, release finished ones (which grants waiters, who start at once on the direct
 * executor), then let this step's arrivals in.
 */
public final class SimulatedServer {

  /** The default step: fine enough for jobs of 45 ms or more. */
  public static final long STEP = TimeUnit.MILLISECONDS.toNanos(5);

  public static final long SECOND = TimeUnit.SECONDS.toNanos(1);

  /** What one job costs: CPU first, then a wait that uses no CPU. */
  public record Job(long cpuNanos, long waitNanos) {}

  /** Makes the next job from the server's random source. */
  @FunctionalInterface
  public interface Jobs {
    /** The next job. */
    Job next(Random random);
  }

  /** The job mixes of the adaptive-limit experiments. */
  public enum Mix implements Jobs {
    /** 200 ms of CPU each. */
    CPU,
    /** 20 ms of CPU each (run it with a step of 1 ms). */
    SHORT,
    /** Half 50 ms, half 800 ms of CPU. */
    SIZES,
    /** 50 ms of CPU, then 250 ms waiting on storage. */
    IO,
    /** 3 s of CPU each, one core wide: a transcode running in a child process. */
    LONG;

    /**
     * The next job, each part within ±10% of its nominal length: real jobs vary, and identical
     * ones would stay in lock-step in a model forever (a batch admitted together computes
     * together and waits together), which no real service does.
     */
    @Override
    public Job next(Random random) {
      return switch (this) {
        case CPU -> new Job(vary(ms(200), random), 0);
        case SHORT -> new Job(vary(ms(20), random), 0);
        case SIZES -> new Job(vary(random.nextBoolean() ? ms(50) : ms(800), random), 0);
        case IO -> new Job(vary(ms(50), random), vary(ms(250), random));
        case LONG -> new Job(vary(ms(3000), random), 0);
      };
    }

    static long vary(long nanos, Random random) {
      return (long) (nanos * (0.9 + 0.2 * random.nextDouble()));
    }

    /** Mean CPU seconds per job. */
    double meanCpuSeconds() {
      return switch (this) {
        case CPU -> 0.2;
        case SHORT -> 0.02;
        case SIZES -> 0.425;
        case IO -> 0.05;
        case LONG -> 3.0;
      };
    }
  }

  private static final class Running {
    final Permit permit;
    final long startedAt;
    final long cpuNanos;
    double cpuLeft;
    long waitLeft;

    Running(Permit permit, Job job, long startedAt) {
      this.permit = permit;
      this.startedAt = startedAt;
      this.cpuNanos = job.cpuNanos;
      this.cpuLeft = job.cpuNanos;
      this.waitLeft = job.waitNanos;
    }
  }

  public final int cores;
  /** The model's step: virtual time advances by this much at a time. */
  public final long step;

  public final VirtualTime time = new VirtualTime();
  private final Random random;
  private final List<Running> running = new ArrayList<>();

  /** Cores kept busy by another process (a neighbour's spike); the sampler sees them too. */
  public double background;

  /**
   * CPU the server spends on every arrival, admitted or not (reading the request, answering a
   * 429): work outside the limit, which grows with the offered load. Taken ahead of the jobs.
   */
  public long overheadPerArrivalNanos;

  /** The units of the limit a job takes ({@link Caller#withCost}); 1 for every job by default. */
  public java.util.function.ToIntFunction<Job> cost = job -> 1;

  /** Who sends each job (its queue key, its class); {@link #cost} sets its cost. */
  public java.util.function.Function<Job, Caller> caller = job -> Caller.DEFAULT;

  /** Overhead CPU (core-nanoseconds) not yet done. */
  private double overheadLeft;

  /** Core-nanoseconds of CPU used so far. */
  private double busyCoreNanos;

  /** Core-nanoseconds of CPU this server's process used so far (no background). */
  private double processCoreNanos;

  private double lastSampleBusy;
  private long lastSampleAt;
  private long nextArrival;

  public final List<Double> cpuPerSecond = new ArrayList<>();
  /** This server's own CPU per second (no background), as the load test reads it. */
  public final List<Double> processCpuPerSecond = new ArrayList<>();

  public final List<Double> limitPerSecond = new ArrayList<>();
  public final List<Double> servicePerSecondMillis = new ArrayList<>();
  private double secondBusy;
  private double secondProcess;
  private double secondLimit;
  private long secondServiceTotal;
  private long secondServiceCount;
  private long steps;

  public long completed;

  /** CPU seconds of the jobs completed: the work done, whatever the sizes of the jobs. */
  public double completedCpuSeconds;

  public final Map<RejectionReason, Long> rejected = new EnumMap<>(RejectionReason.class);

  public ConcurrencyLimiter limiter;

  public SimulatedServer(int cores, long seed) {
    this(cores, seed, STEP);
  }

  /** A server whose model advances by {@code stepNanos} at a time (1 ms for 20 ms jobs). */
  public SimulatedServer(int cores, long seed, long stepNanos) {
    this.cores = cores;
    this.step = stepNanos;
    this.random = new Random(seed);
    this.lastSampleAt = time.nanoTime();
    this.nextArrival = time.nanoTime();
  }

  public static long ms(long millis) {
    return TimeUnit.MILLISECONDS.toNanos(millis);
  }

  /** The settings every simulation starts from: a queue of 500, a 5 s timeout. */
  public static LimiterSpec.Builder spec() {
    return LimiterSpec.custom().maxQueue(500).queueTimeout(Duration.ofSeconds(5));
  }

  /**
   * The builder every simulation starts from: {@link #spec()}, virtual time, grants completed
   * inline.
   */
  public ConcurrencyLimiter.Builder builder() {
    return ConcurrencyLimiter.builder("sim")
        .spec(spec().build())
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run);
  }

  /**
   * The demo's transcode limiter on this server: a CPU limit holding {@code targetCpu} of this
   * server's own CPU, from 1 up to {@code maxConcurrency}, a queue of 40, a 10 s timeout,
   * reject-early.
   */
  public ConcurrencyLimiter cpuLimited(int maxConcurrency, double targetCpu) {
    return builder()
        .spec(LimiterSpec.custom()
            .maxConcurrency(maxConcurrency)
            .maxQueue(40)
            .queueTimeout(Duration.ofSeconds(10))
            .rejectEarly(true)
            .limit(LimitSpec.of(
                "cpu",
                (max, start) -> CpuLimit.builder()
                    .targetCpu(targetCpu)
                    .sampler(processSampler())
                    .initialLimit(1)
                    .maxLimit(max)
                    .build()))
            .build())
        .build();
  }

  /** The machine's CPU since the previous call, as a {@link CpuSampler} reads it. */
  public CpuSampler sampler() {
    return () -> {
      long now = time.nanoTime();
      long elapsed = now - lastSampleAt;
      if (elapsed <= 0) {
        return Double.NaN;
      }
      double cpu = (busyCoreNanos - lastSampleBusy) / ((double) cores * elapsed);
      lastSampleBusy = busyCoreNanos;
      lastSampleAt = now;
      return cpu;
    };
  }

  /**
   * This server's own CPU since the previous call (jobs and per-arrival overhead, not the
   * background), as {@link CpuSampler#process()} reads it.
   */
  public CpuSampler processSampler() {
    double[] last = {processCoreNanos};
    long[] lastAt = {time.nanoTime()};
    return () -> {
      long now = time.nanoTime();
      long elapsed = now - lastAt[0];
      if (elapsed <= 0) {
        return Double.NaN;
      }
      double cpu = (processCoreNanos - last[0]) / ((double) cores * elapsed);
      last[0] = processCoreNanos;
      lastAt[0] = now;
      return cpu;
    };
  }

  /** Arrival rate that is {@code factor} x what the cores can serve of this mix. */
  public static double overload(int cores, Mix mix, double factor) {
    return factor * cores / mix.meanCpuSeconds();
  }

  /** Arrival rate that is {@code factor} x what the cores can serve of this mix. */
  public double overload(Mix mix, double factor) {
    return factor * cores / mix.meanCpuSeconds();
  }

  /** Runs for {@code duration} with {@code arrivalsPerSecond} clients of {@code mix}. */
  public void run(Duration duration, Jobs mix, double arrivalsPerSecond) {
    long stepsToRun = duration.toNanos() / step;
    for (long i = 0; i < stepsToRun; i++) {
      step(mix, arrivalsPerSecond);
    }
  }

  @SuppressWarnings("NarrowCalculation") // samples per second: a whole number
  private void step(Jobs mix, double arrivalsPerSecond) {
    time.advanceNanos(step);
    int computing = 0;
    for (Running job : running) {
      if (job.cpuLeft > 0) {
        computing++;
      }
    }
    double free = cores - background;
    double overhead = Math.min(free, overheadLeft / step);
    overheadLeft -= overhead * step;
    free -= overhead;
    double rate = computing <= free ? 1.0 : free / computing;
    double busy = Math.min(computing, free) + background + overhead;
    busyCoreNanos += busy * step;
    processCoreNanos += (busy - background) * step;
    secondProcess += (busy - background) * step;
    secondBusy += busy * step;
    List<Running> done = new ArrayList<>();
    for (Running job : running) {
      if (job.cpuLeft > 0) {
        job.cpuLeft -= rate * step;
      } else {
        job.waitLeft -= step;
      }
      if (job.cpuLeft <= 0 && job.waitLeft <= 0) {
        done.add(job);
      }
    }
    running.removeAll(done);
    long now = time.nanoTime();
    for (Running job : done) {
      completed++;
      completedCpuSeconds += job.cpuNanos / 1e9;
      secondServiceTotal += now - job.startedAt;
      secondServiceCount++;
      job.permit.release();
    }
    while (now - nextArrival >= 0) {
      overheadLeft += overheadPerArrivalNanos;
      arrive(mix.next(random));
      nextArrival += (long) (-Math.log(1 - random.nextDouble()) / arrivalsPerSecond * SECOND);
    }
    if (steps % 2 == 0) {
      secondLimit += limiter.snapshot().limit(); // every 10 ms: a snapshot sums counters
    }
    if (++steps % (SECOND / step) == 0) {
      cpuPerSecond.add(secondBusy / ((double) cores * SECOND));
      limitPerSecond.add(secondLimit / (SECOND / step / 2));
      servicePerSecondMillis.add(
          secondServiceCount == 0 ? Double.NaN : secondServiceTotal / 1e6 / secondServiceCount);
      processCpuPerSecond.add(secondProcess / ((double) cores * SECOND));
      secondBusy = 0;
      secondProcess = 0;
      secondLimit = 0;
      secondServiceTotal = 0;
      secondServiceCount = 0;
    }
  }

  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  private void arrive(Job job) {
    int units = cost.applyAsInt(job);
    Caller who = caller.apply(job);
    (units == 1 && who == Caller.DEFAULT ? limiter.acquire() : limiter.acquire(who.withCost(units)))
        .whenComplete((permit, failure) -> {
          if (permit != null) {
            running.add(new Running(permit, job, time.nanoTime()));
          } else if (failure instanceof ConcurrencyRejectedException rejection) {
            rejected.merge(rejection.reason(), 1L, Long::sum);
          }
        });
  }

  /** Jobs holding a permit now. */
  public int inFlight() {
    return running.size();
  }

  public long rejected(RejectionReason reason) {
    return rejected.getOrDefault(reason, 0L);
  }

  /** Means of consecutive windows of {@code width} values in [from, to). */
  public static List<Double> windows(List<Double> values, int from, int to, int width) {
    List<Double> means = new ArrayList<>();
    for (int i = from; i + width <= to; i += width) {
      means.add(mean(values, i, i + width));
    }
    return means;
  }

  /** The mean of {@code values} from index {@code from} (inclusive) to {@code to} (exclusive). */
  public static double mean(List<Double> values, int from, int to) {
    double sum = 0;
    for (int i = from; i < to; i++) {
      sum += values.get(i);
    }
    return sum / (to - from);
  }

  /** The largest distance of a value in [from, to) from {@code centre}. */
  public static double maxDeviation(List<Double> values, int from, int to, double centre) {
    double max = 0;
    for (int i = from; i < to; i++) {
      max = Math.max(max, Math.abs(values.get(i) - centre));
    }
    return max;
  }
}
