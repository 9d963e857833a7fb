package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.SimulatedServer.Mix;
import dev.sluice.concurrency.limit.LatencyLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The latency limit on the simulated machine: it finds the knee of each kind of job. */
class LatencyLimitSimulationTest {

  private static SimulatedServer server(int cores) {
    SimulatedServer server = new SimulatedServer(cores, 3);
    server.limiter = server
        .builder()
        .spec(SimulatedServer.spec()
            .limit(
                LimitSpec.of("latency", (max, startAt) -> LatencyLimit.builder().build()))
            .build())
        .build();
    return server;
  }

  @Test
  void growsFarForJobsThatMostlyWaitOnStorage() {
    SimulatedServer server = server(16);
    Mix mix = Mix.IO;

    server.run(Duration.ofSeconds(20), mix, server.overload(mix, 2));

    // 50 ms of CPU in 300 ms: about 6 jobs per core before the CPU is the bottleneck
    assertThat(SimulatedServer.mean(server.limitPerSecond, 10, 20)).isGreaterThan(75);
    assertThat(SimulatedServer.mean(server.servicePerSecondMillis, 10, 20)).isLessThan(300 * 1.7);
  }

  @Test
  void staysNearTheCoresForCpuBoundJobs() {
    SimulatedServer server = server(2);
    Mix mix = Mix.CPU;

    server.run(Duration.ofSeconds(20), mix, server.overload(mix, 2));

    assertThat(SimulatedServer.mean(server.limitPerSecond, 5, 20)).isLessThan(5);
  }

  @Test
  void shrinksWhenServiceTimeRisesAndGrowsBackAfter() {
    SimulatedServer server = server(16);
    Mix mix = Mix.IO;
    double rate = server.overload(mix, 2);
    server.run(Duration.ofSeconds(15), mix, rate);
    double before = SimulatedServer.mean(server.limitPerSecond, 10, 15);

    server.background = 14; // a neighbour takes most of the CPU: every job's CPU part stretches
    server.run(Duration.ofSeconds(10), mix, rate);
    double during = SimulatedServer.mean(server.limitPerSecond, 20, 25);
    server.background = 0;
    server.run(Duration.ofSeconds(15), mix, rate);

    assertThat(during).as("%s", server.limitPerSecond).isLessThan(before * 0.5);
    assertThat(SimulatedServer.mean(server.limitPerSecond, 35, 40))
        .as("%s", server.limitPerSecond)
        .isGreaterThan(before * 0.8);
  }

  /** envoy#9038 on the simulated machine: no periodic dips of the limit in steady overload. */
  @Test
  void holdsItsLimitWithoutPeriodicDipsInSteadyOverload() {
    SimulatedServer server = server(32);
    Mix mix = Mix.CPU;

    server.run(Duration.ofSeconds(40), mix, server.overload(mix, 2));

    double mean = SimulatedServer.mean(server.limitPerSecond, 10, 40);
    assertThat(server.limitPerSecond.subList(10, 40))
        .allSatisfy(l -> assertThat(l).isGreaterThan(mean * 0.8));
  }
}
