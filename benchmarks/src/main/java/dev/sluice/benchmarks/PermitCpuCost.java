package dev.sluice.benchmarks;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.LatencyLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Acquire + release of one permit, measured in this thread's CPU time rather than wall time: on a
 * machine shared with a load average of 20-60, JMH's wall-clock figures had error bars of 100%
 * (a thread descheduled mid-iteration counts the wait), while the CPU a thread spends per
 * operation hardly moves with the load. Variants run in rounds, interleaved, one JVM; the median
 * batch of each is reported.
 *
 * <p>{@code fixed} uses only API that main had before the adaptive limits, so the same class run
 * against an older limiter-core jar gives the "before" figure ({@code cpu} and {@code latency}
 * are then skipped; they live in {@link Adaptive}, loaded only when asked for).
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.sluice.benchmarks.PermitCpuCost fixed cpu latency
 * </pre>
 */
public final class PermitCpuCost {

  private static final int LIMIT = 64;
  private static final int OPS_PER_BATCH = 2_000_000;
  private static final int ROUNDS = 15;

  private PermitCpuCost() {}

  public static void main(String[] args) {
    List<String> names = args.length == 0 ? List.of("fixed") : Arrays.asList(args);
    List<ConcurrencyLimiter> limiters = new ArrayList<>();
    for (String name : names) {
      limiters.add(name.equals("fixed") ? fixed() : Adaptive.of(name));
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[][] perOp = new long[names.size()][ROUNDS];
    long sink = 0;
    for (int warmup = 0; warmup < 5; warmup++) {
      for (ConcurrencyLimiter limiter : limiters) {
        sink += batch(limiter);
      }
    }
    for (int round = 0; round < ROUNDS; round++) {
      for (int v = 0; v < limiters.size(); v++) {
        long start = threads.getCurrentThreadCpuTime();
        sink += batch(limiters.get(v));
        perOp[v][round] = (threads.getCurrentThreadCpuTime() - start) * 1000 / OPS_PER_BATCH;
      }
    }
    for (int v = 0; v < names.size(); v++) {
      long[] sorted = perOp[v].clone();
      Arrays.sort(sorted);
      System.out.printf(
          "%-8s median %.2f ns CPU/op (min %.2f, max %.2f) [%d]%n",
          names.get(v),
          sorted[ROUNDS / 2] / 1000.0,
          sorted[0] / 1000.0,
          sorted[ROUNDS - 1] / 1000.0,
          sink & 1);
    }
  }

  private static long batch(ConcurrencyLimiter limiter) {
    long admitted = 0;
    for (int i = 0; i < OPS_PER_BATCH; i++) {
      Optional<Permit> permit = limiter.tryAcquire();
      if (permit.isPresent()) {
        permit.get().release();
        admitted++;
      }
    }
    return admitted;
  }

  private static ConcurrencyLimiter fixed() {
    return ConcurrencyLimiter.of(
        "fixed",
        LimiterSpec.custom()
            .maxConcurrency(LIMIT)
            .maxQueue(LIMIT)
            .queueTimeout(Duration.ofMinutes(1))
            .build());
  }

  /** The adaptive variants, in their own class so that an older core without them still runs. */
  private static final class Adaptive {
    static ConcurrencyLimiter of(String name) {
      LimitSpec limit = switch (name) {
        case "cpu" ->
          // the sampler reads the target: the limit stays at 64 while the controller ticks
          LimitSpec.of(
              "cpu",
              (max, startAt) -> CpuLimit.builder()
                  .targetCpu(0.7)
                  .sampler(() -> 0.7)
                  .initialLimit(max)
                  .maxLimit(max)
                  .build());
        case "latency" ->
          LimitSpec.of(
              "latency",
              (max, startAt) -> LatencyLimit.builder()
                  .minLimit(max)
                  .maxLimit(max)
                  .initialLimit(max)
                  .build());
        default -> throw new IllegalArgumentException("variants: fixed, cpu, latency; not " + name);
      };
      return ConcurrencyLimiter.of(
          name,
          LimiterSpec.custom()
              .maxConcurrency(LIMIT)
              .maxQueue(LIMIT)
              .queueTimeout(Duration.ofMinutes(1))
              .limit(limit)
              .build());
    }
  }
}
