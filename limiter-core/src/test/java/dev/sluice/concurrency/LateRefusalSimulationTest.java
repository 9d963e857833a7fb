package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Rejection by predicted wait under a CPU limit on the simulated server ({@link SimulatedServer}),
 * the demo's transcode limiter (a queue of 40, 10 s timeout, reject-early) on 2 cores: with jobs
 * of 50 and 800 ms the limit and the service time move from job to job, and a caller admitted at
 * the edge of its timeout would be refused at its first re-check. The queue keeps a margin for
 * that: nearly every refusal comes at arrival, and the CPU still holds its target.
 */
class LateRefusalSimulationTest {

  @ParameterizedTest(name = "{0} at {1}x, seed {2}")
  @CsvSource({"SIZES, 2, 1", "SIZES, 5, 2", "CPU, 2, 3", "IO, 2, 4"})
  void nearlyEveryRefusalComesAtArrival(SimulatedServer.Mix mix, double overload, long seed) {
    SimulatedServer server = new SimulatedServer(2, seed);
    server.limiter = server.cpuLimited(16, 0.7);

    server.run(Duration.ofMinutes(2), mix, server.overload(mix, overload));

    ConcurrencySnapshot s = server.limiter.snapshot();
    long refused = s.rejectedQueueFull() + s.rejectedQueueTimeout();
    String why = s.toString();
    assertThat(refused).as(why).isPositive();
    // without the margin, 41-45 % of the refusals of the 50/800 ms mix at 2x came late
    assertThat((double) (s.rejectedLate() + s.rejectedQueueTimeout()) / refused)
        .as(why)
        .isLessThanOrEqualTo(0.08);
    assertThat(SimulatedServer.mean(server.processCpuPerSecond, 20, 120))
        .isCloseTo(0.70, within(0.02));
  }
}
