package dev.sluice.concurrency.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.SimulatedServer;
import dev.sluice.concurrency.SimulatedServer.Mix;
import dev.sluice.concurrency.StubControl;
import dev.sluice.testing.Seeds;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Randomized: any real-valued limit is what the permits held average, however long the jobs, and the CPU
 * limit holds its target for a random mix, machine, overload and target. The seed is printed in
 * every failure; {@code -Dtest.seed=N} pins it ({@link Seeds}).
 */
@Tag("property")
class AdaptiveLimitPropertyTest {

  private static long seed() {
    return Seeds.seed();
  }

  @Test
  void thePermitsHeldAverageTheRealValuedLimitWhateverTheJobsLength() {
    long seed = seed();
    Random random = new Random(seed);
    for (int trial = 0; trial < 50; trial++) {
      double wanted = 1 + random.nextDouble() * 19;
      // jobs from one tick to six seconds long: a dithered extra permit is held the whole job
      int longest = 1 + random.nextInt(60);
      StubControl control = new StubControl();
      AdaptiveLimit limit = new AdaptiveLimit(1, 50, 1, CpuLimit.DEFAULT_TICK) {
        @Override
        protected double adjust(double current, LimitSource.Control c) {
          return wanted;
        }
      };
      limit.start(control);
      java.util.PriorityQueue<Integer> endsAt = new java.util.PriorityQueue<>();
      int ticks = 20_000;
      long held = 0;
      for (int tick = 0; tick < ticks; tick++) {
        control.time.advance(CpuLimit.DEFAULT_TICK); // the controller reads control.inFlight
        while (!endsAt.isEmpty() && endsAt.peek() <= tick) {
          endsAt.poll();
        }
        // callers always wait: a permit the limit allows is taken at once
        while (endsAt.size() < limit.limit()) {
          endsAt.add(tick + 1 + random.nextInt(longest));
        }
        control.inFlight = endsAt.size();
        assertThat(Math.abs(limit.limit() - wanted)).as("seed %d", seed).isLessThan(1.0);
        held += endsAt.size();
      }
      assertThat((double) held / ticks)
          .as("seed %d, wanted %s, jobs up to %d ticks", seed, wanted, longest)
          .isCloseTo(wanted, within(0.02));
    }
  }

  @Test
  @SuppressWarnings("EnumOrdinal") // a random mix drawn from the seed
  void theCpuLimitHoldsARandomTargetForARandomMixMachineAndOverload() {
    long seed = seed();
    Random random = new Random(seed);
    Mix mix = Mix.values()[random.nextInt(Mix.values().length)];
    int cores = 2 + random.nextInt(15);
    double factor = 1.5 + random.nextDouble() * 3.5;
    // at least 1.4 CPU-bound jobs' worth: nearer one job, the limit cannot go below 1 and each
    // dithered second job runs its whole length (800 ms for sizes), so the mean overshoots (seen:
    // target 0.52 on 2 cores held at 0.59)
    double lowest = Math.max(0.5, 1.4 / cores);
    double target = lowest + random.nextDouble() * (0.85 - lowest);
    SimulatedServer server = new SimulatedServer(cores, seed);
    server.limiter = server
        .builder()
        .spec(SimulatedServer.spec()
            .maxConcurrency(CpuLimit.DEFAULT_MAX_LIMIT)
            .limit(LimitSpec.of(
                "cpu",
                (max, startAt) -> CpuLimit.builder()
                    .targetCpu(target)
                    .sampler(server.sampler())
                    .initialLimit(1)
                    .maxLimit(max)
                    .build()))
            .build())
        .build();

    server.run(Duration.ofSeconds(40), mix, server.overload(mix, factor));

    assertThat(SimulatedServer.mean(server.cpuPerSecond, 15, 40))
        .as(
            "seed %d: %s on %d cores at %.1fx, target %.2f: %s",
            seed, mix, cores, factor, target, server.cpuPerSecond)
        .isCloseTo(target, within(0.05));
  }
}
