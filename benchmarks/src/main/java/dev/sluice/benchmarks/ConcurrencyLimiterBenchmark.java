package dev.sluice.benchmarks;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.LatencyLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import io.github.resilience4j.bulkhead.Bulkhead;
import io.github.resilience4j.bulkhead.BulkheadConfig;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Acquire + release of one permit, Sluice beside its peers in the same class and run, so the
 * ratios mean something on a noisy machine. The limit (64) is far above the thread count: every
 * attempt succeeds, and what is measured is the bookkeeping of a permit, not waiting.
 *
 * <p>This class runs on 1 thread (uncontended); {@link TwoThreads} runs the same methods on 2
 * threads sharing one limiter.
 *
 * <ul>
 *   <li>{@code sluice}: {@code tryAcquire()} then {@code release()} (the like-for-like "try" path);
 *   <li>{@code sluiceAsync}: {@code acquire()} (a completed future) then {@code release()}, the
 *       path the Javalin plugin takes;
 *   <li>{@code sluiceNoClock}: as {@code sluice} with a clock that always reads 0 — not a
 *       configuration to use (service-time statistics become 0), a diagnostic that shows what the
 *       clock reads of the timed permits cost on this machine;
 *   <li>{@code sluiceListener}: as {@code sluice} with a (no-op) listener configured, which makes
 *       the limiter time every permit (two clock reads), the path the Javalin plugin takes when
 *       it binds metrics;
 *   <li>{@code sluiceCpu}: as {@code sluice} with a {@code CpuLimit} (its sampler reads the target,
 *       so the limit stays at 64; the controller ticks on the system scheduler meanwhile): the
 *       adaptive fast path, a volatile read in another class;
 *   <li>{@code sluiceLatency}: as {@code sluice} with a {@code LatencyLimit} pinned at 64 (min =
 *       max): every timed permit's service time also goes to its window (two striped adds);
 *   <li>{@code semaphore}: a bare {@link Semaphore}, the floor;
 *   <li>{@code resilience4j}: {@code SemaphoreBulkhead} via {@code Bulkhead.of}, default fairness,
 *       no wait;
 *   <li>{@code netflix}: concurrency-limits {@code SimpleLimiter} with a {@code FixedLimit}.
 * </ul>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class ConcurrencyLimiterBenchmark {

  private static final int LIMIT = 64;

  private ConcurrencyLimiter sluice;
  private ConcurrencyLimiter sluiceNoClock;
  private ConcurrencyLimiter sluiceListener;
  private ConcurrencyLimiter sluiceCpu;
  private ConcurrencyLimiter sluiceLatency;
  private Semaphore semaphore;
  private Bulkhead bulkhead;
  private Limiter<Void> netflix;

  @Setup
  public void setUp() {
    sluice = ConcurrencyLimiter.of(
        "bench",
        LimiterSpec.custom()
            .maxConcurrency(LIMIT)
            .maxQueue(LIMIT)
            .queueTimeout(Duration.ofMinutes(1))
            .build());
    sluiceNoClock = ConcurrencyLimiter.builder("bench-no-clock")
        .spec(LimiterSpec.custom()
            .maxConcurrency(LIMIT)
            .maxQueue(LIMIT)
            .queueTimeout(Duration.ofMinutes(1))
            .build())
        .clock(() -> 0L)
        .build();
    sluiceListener = ConcurrencyLimiter.builder("bench-listener")
        .spec(LimiterSpec.custom()
            .maxConcurrency(LIMIT)
            .maxQueue(LIMIT)
            .queueTimeout(Duration.ofMinutes(1))
            .build())
        .listener(new ConcurrencyListener() {})
        .build();
    sluiceCpu = ConcurrencyLimiter.of(
        "bench-cpu",
        LimiterSpec.custom()
            .maxConcurrency(LIMIT)
            .maxQueue(LIMIT)
            .queueTimeout(Duration.ofMinutes(1))
            .limit(LimitSpec.of(
                "cpu",
                (max, startAt) -> CpuLimit.builder()
                    .targetCpu(0.7)
                    .sampler(() -> 0.7)
                    .initialLimit(max)
                    .maxLimit(max)
                    .build()))
            .build());
    sluiceLatency = ConcurrencyLimiter.of(
        "bench-latency",
        LimiterSpec.custom()
            .maxConcurrency(LIMIT)
            .maxQueue(LIMIT)
            .queueTimeout(Duration.ofMinutes(1))
            .limit(LimitSpec.of(
                "latency",
                (max, startAt) -> LatencyLimit.builder()
                    .minLimit(max)
                    .maxLimit(max)
                    .initialLimit(max)
                    .build()))
            .build());
    semaphore = new Semaphore(LIMIT);
    bulkhead = Bulkhead.of(
        "bench",
        BulkheadConfig.custom()
            .maxConcurrentCalls(LIMIT)
            .maxWaitDuration(Duration.ZERO)
            .build());
    netflix = SimpleLimiter.newBuilder().limit(FixedLimit.of(LIMIT)).build();
  }

  @Benchmark
  public boolean sluice() {
    return tryAndRelease(sluice);
  }

  @Benchmark
  public boolean sluiceAsync() {
    CompletableFuture<Permit> future = sluice.acquire();
    Permit permit = future.getNow(null);
    if (permit != null) {
      permit.release();
      return true;
    }
    return false;
  }

  @Benchmark
  public boolean sluiceNoClock() {
    return tryAndRelease(sluiceNoClock);
  }

  @Benchmark
  public boolean sluiceListener() {
    return tryAndRelease(sluiceListener);
  }

  @Benchmark
  public boolean sluiceCpu() {
    return tryAndRelease(sluiceCpu);
  }

  @Benchmark
  public boolean sluiceLatency() {
    return tryAndRelease(sluiceLatency);
  }

  private static boolean tryAndRelease(ConcurrencyLimiter limiter) {
    Optional<Permit> permit = limiter.tryAcquire();
    if (permit.isPresent()) {
      permit.get().release();
      return true;
    }
    return false;
  }

  @Benchmark
  public boolean semaphore() {
    if (semaphore.tryAcquire()) {
      semaphore.release();
      return true;
    }
    return false;
  }

  @Benchmark
  public boolean resilience4j() {
    if (bulkhead.tryAcquirePermission()) {
      bulkhead.onComplete();
      return true;
    }
    return false;
  }

  @Benchmark
  public boolean netflix() {
    Optional<Limiter.Listener> listener = netflix.acquire(null);
    if (listener.isPresent()) {
      listener.get().onSuccess();
      return true;
    }
    return false;
  }

  /** The same benchmarks, two threads on one shared limiter. */
  @Threads(2)
  public static class TwoThreads extends ConcurrencyLimiterBenchmark {}
}
