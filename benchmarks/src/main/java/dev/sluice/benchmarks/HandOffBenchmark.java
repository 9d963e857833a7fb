package dev.sluice.benchmarks;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Hand-off latency: a permit holder releases while one caller waits; measured until the waiter's
 * continuation starts on the executor. Each operation also queues that waiter first (a few hundred
 * nanoseconds), so the figure is an upper bound of release-to-continuation. Sample mode gives the
 * median and the tail.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(1)
public class HandOffBenchmark {

  /** {@code commonPool}: the default executor; {@code singleThread}: a dedicated thread. */
  @Param({"commonPool", "singleThread"})
  public String executor;

  private ExecutorService ownExecutor;
  private ConcurrencyLimiter limiter;
  private Permit held;
  private volatile boolean started;

  @Setup(Level.Trial)
  public void setUp() {
    Executor chosen;
    if (executor.equals("singleThread")) {
      ownExecutor = Executors.newSingleThreadExecutor();
      chosen = ownExecutor;
    } else {
      chosen = ForkJoinPool.commonPool();
    }
    limiter = ConcurrencyLimiter.builder("handoff")
        .spec(LimiterSpec.custom()
            .maxConcurrency(1)
            .maxQueue(1)
            .queueTimeout(Duration.ofMinutes(1))
            .build())
        .executor(chosen)
        .build();
    held = limiter.tryAcquire().orElseThrow();
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    held.release();
    if (ownExecutor != null) {
      ownExecutor.shutdownNow();
    }
  }

  @Benchmark
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  public Permit handOff() {
    started = false;
    CompletableFuture<Permit> next = limiter.acquire();
    next.thenRun(() -> started = true);
    held.release();
    while (!started) {
      Thread.onSpinWait();
    }
    held = next.join();
    return held;
  }
}
