package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.SimulatedServer.Mix;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CPU limit's step response on the simulated server ({@link SimulatedServer}), as the load
 * test's step measures it: 15 s at 1x the capacity, 15 s at 10x, 15 s at 1x, the limiter as the
 * load test's {@code fifo} variant sets it (40 places, 10 s, reject-early), the CPU read as the
 * process's own. After each step every later 1-second reading of the phase is within 5 points of
 * the target from 2 s on.
 *
 * <p>What it does not cover: a target out of reach. When neighbours hold the cores (a load
 * generator on the same machine, other services), the CPU stays under the target whatever the
 * limit, the limit grows to its ceiling meanwhile, and after they leave the jobs it admitted hold
 * the CPU at 100% for seconds (see the CPU limit section of the module's README).
 */
class CpuLimitStepTest {

  private static final double TARGET = 0.70;
  private static final int PHASE = 15;

  private static SimulatedServer server(int cores, long seed, long stepNanos) {
    SimulatedServer server = new SimulatedServer(cores, seed, stepNanos);
    server.limiter = server
        .builder()
        .spec(LimiterSpec.custom()
            .maxConcurrency(1000)
            .maxQueue(40)
            .queueTimeout(Duration.ofSeconds(10))
            .rejectEarly(true)
            .limit(LimitSpec.of(
                "cpu",
                (max, start) -> CpuLimit.builder()
                    .targetCpu(TARGET)
                    .sampler(server.processSampler())
                    .initialLimit(1)
                    .maxLimit(max)
                    .build()))
            .build())
        .build();
    return server;
  }

  /** Seconds after {@code from} until every later reading before {@code to} is in the band. */
  private static int settled(List<Double> cpu, int from, int to) {
    int last = from - 1;
    for (int i = from; i < to; i++) {
      if (Math.abs(cpu.get(i) - TARGET) > 0.05) {
        last = i;
      }
    }
    return last + 1 - from;
  }

  /**
   * Each request costs the server CPU whether admitted or not (reading it, answering a 429): at
   * 10x that is CPU outside the limit, which the limit must give up, and give back after. 20 ms
   * jobs on 2 cores at 0.3 ms a request (15 points at 10x); 200 ms jobs on 8 cores at 1 ms a
   * request (5 points at 10x).
   */
  @ParameterizedTest(name = "{0} on {1} cores, seed {3}")
  @CsvSource({
    "SHORT, 2, 300, 1",
    "SHORT, 2, 300, 2",
    "SHORT, 2, 300, 3",
    "CPU, 8, 1000, 1",
    "CPU, 8, 1000, 2"
  })
  void settlesWithinTwoSecondsOfEachStepWhenOverloadCostsCpuOfItsOwn(
      Mix mix, int cores, long overheadMicros, long seed) {
    SimulatedServer server =
        server(cores, seed, mix == Mix.SHORT ? SimulatedServer.ms(1) : SimulatedServer.STEP);
    server.overheadPerArrivalNanos = overheadMicros * 1000;
    double capacity = server.overload(mix, 1);

    server.run(Duration.ofSeconds(PHASE), mix, capacity);
    server.run(Duration.ofSeconds(PHASE), mix, capacity * 10);
    server.run(Duration.ofSeconds(PHASE), mix, capacity);

    List<Double> cpu = server.processCpuPerSecond;
    assertThat(SimulatedServer.mean(cpu, 5, PHASE))
        .as("steady 1x, %s", cpu)
        .isCloseTo(TARGET, within(0.05));
    assertThat(settled(cpu, PHASE, 2 * PHASE))
        .as("after 1x -> 10x, %s", cpu)
        .isLessThanOrEqualTo(2);
    assertThat(settled(cpu, 2 * PHASE, 3 * PHASE))
        .as("after 10x -> 1x, %s", cpu)
        .isLessThanOrEqualTo(2);
    assertThat(SimulatedServer.mean(cpu, 2 * PHASE + 2, 3 * PHASE))
        .as("%s", cpu)
        .isCloseTo(TARGET, within(0.05));
    assertThat(cpu.subList(PHASE, 3 * PHASE))
        .as("no collapse after a step")
        .allSatisfy(c -> assertThat(c).isGreaterThan(0.55));
  }
}
