package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.SimulatedServer.Job;
import dev.sluice.concurrency.limit.CpuLimit;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CPU limit from a cold JVM on the simulated server ({@link SimulatedServer}): the demo's
 * transcode limiter (target 70 %, from 1 up to 4 permits on 2 cores, the machine's CPU), 400 ms
 * jobs at 5x. A cold JVM runs its first jobs slower (interpreted code: {@code slowdown} x the CPU
 * for the first 5 s, falling to 1x) while its JIT compiler threads take CPU of their own ({@code
 * jit} cores for the first 3 s): the controller sees CPU it did not admit and must neither wind
 * the limit up past what the machine can run nor stay below the target once the JVM is warm.
 *
 * <p>What it does (printed): during the JIT burst the CPU reads 91-100 % with one job running, so
 * the limit stays at its floor of 1 (no overshoot: it never passes 1.5 in the first 10 s); once
 * the burst ends the CPU sits near 50 % (one job of two cores) for two or three seconds while the
 * limit, its gain scaled down for the slow first jobs, climbs back to about 1.3; from 8 s on the
 * mean is at the target.
 */
class CpuLimitColdStartTest {

  private static final double TARGET = 0.70;

  @ParameterizedTest(name = "slowdown {0}x, JIT {1} cores, seed {2}")
  @CsvSource({"1, 0, 1", "3, 0.5, 2", "3, 1.0, 3"})
  void theLimitNeitherOvershootsNorStaysLowWhileTheJvmWarmsUp(
      double slowdown, double jit, long seed) {
    SimulatedServer server = new SimulatedServer(2, seed);
    server.limiter = server
        .builder()
        .spec(LimiterSpec.custom()
            .maxConcurrency(4)
            .maxQueue(40)
            .queueTimeout(Duration.ofSeconds(2))
            .rejectEarly(true)
            .limit(dev.sluice.concurrency.limit.LimitSpec.of(
                "cpu",
                (max, start) -> CpuLimit.builder()
                    .targetCpu(TARGET)
                    .sampler(server.sampler())
                    .initialLimit(1)
                    .maxLimit(max)
                    .build()))
            .build())
        .build();
    long start = server.time.nanoTime();
    SimulatedServer.Jobs jobs = random -> {
      double warm = Math.min(1, (server.time.nanoTime() - start) / 5e9);
      double factor = slowdown + (1 - slowdown) * warm;
      return new Job(
          (long) (SimulatedServer.Mix.vary(SimulatedServer.ms(400), random) * factor), 0);
    };
    double rate = 5 * 2 / 0.4;

    server.background = jit;
    server.run(Duration.ofSeconds(3), jobs, rate);
    server.background = 0;
    server.run(Duration.ofSeconds(27), jobs, rate);

    List<Double> cpu = server.cpuPerSecond;
    List<Double> limit = server.limitPerSecond;
    System.out.printf(
        "cold JVM %.0fx/%.1f: cpu %s%n  limit %s%n",
        slowdown, jit, cpu.subList(0, 12), limit.subList(0, 12));
    // never wound up to the ceiling by the CPU it did not admit
    assertThat(limit.subList(0, 10))
        .as("limit per second %s", limit)
        .allSatisfy(l -> assertThat(l).isLessThan(3.5));
    // at target within a few seconds of the JVM being warm, and held
    assertThat(SimulatedServer.mean(cpu, 8, 30))
        .as("cpu %s", cpu)
        .isBetween(TARGET - 0.05, TARGET + 0.05);
  }
}
