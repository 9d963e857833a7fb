package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.SimulatedServer.Job;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Declared costs under a CPU limit on the simulated server ({@link SimulatedServer}): jobs of 20
 * and 200 ms of CPU, half each by count, costing 1 and 10 units, on 2 cores at twice what they
 * can serve. The limit and its ceiling count units, so the ceiling must leave room for the costly
 * jobs; sized in jobs, it holds the CPU under the target whatever the controller wants.
 */
class CostSimulationTest {

  private static final double TARGET = 0.70;

  private static List<Double> cpuWithCeiling(int ceiling) {
    SimulatedServer server = new SimulatedServer(2, 5, SimulatedServer.ms(1));
    server.cost = job -> job.cpuNanos() > SimulatedServer.ms(100) ? 10 : 1;
    server.limiter = server.cpuLimited(ceiling, TARGET);
    SimulatedServer.Jobs jobs = random -> new Job(
        SimulatedServer.Mix.vary(SimulatedServer.ms(random.nextBoolean() ? 20 : 200), random), 0);

    server.run(Duration.ofSeconds(40), jobs, 2 * 2 / 0.11);

    return server.processCpuPerSecond;
  }

  @Test
  void aCeilingInUnitsLeavesRoomForTheCostlyJobs() {
    List<Double> cpu = cpuWithCeiling(8 * 2 * 10); // 8 jobs a core, of the costliest

    assertThat(SimulatedServer.mean(cpu, 10, 40)).as("%s", cpu).isCloseTo(TARGET, within(0.05));
  }

  @Test
  void aCeilingSizedInJobsHoldsTheCpuUnderTheTarget() {
    // 16 units: one job of cost 10 at a time, and those jobs carry 91% of the work
    List<Double> cpu = cpuWithCeiling(8 * 2);

    assertThat(SimulatedServer.mean(cpu, 10, 40)).as("%s", cpu).isLessThan(0.60);
  }
}
