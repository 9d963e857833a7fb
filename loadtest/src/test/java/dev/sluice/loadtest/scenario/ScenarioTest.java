package dev.sluice.loadtest.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.engine.ArrivalPlan;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The traffic of the open-loop scenarios, as the arrival plan sends it. */
class ScenarioTest {

  @Test
  void spikeScenarioSendsFourTimesTheRateInItsMiddleFifth() {
    Duration duration = Duration.ofSeconds(100);
    ArrivalPlan plan = ArrivalPlan.generate(Scenario.SPIKE.streams(20, 100, duration), duration, 3);
    long before = countTranscode(plan, 0, 40);
    long during = countTranscode(plan, 40, 60);
    // 20/s for 40 s = 800 before; 80/s for 20 s = 1600 during
    assertThat(before).isBetween(650L, 950L);
    assertThat(during).isBetween(1400L, 1800L);
  }

  @Test
  void mondayMaintenanceSpreadsTranscodeJobsOverThirtyTwoHosts() {
    Duration duration = Duration.ofSeconds(60);
    ArrivalPlan plan =
        ArrivalPlan.generate(Scenario.MONDAY_MAINTENANCE.streams(20, 100, duration), duration, 3);
    long hosts = plan.arrivals().stream()
        .filter(x -> x.stream().equals("transcode"))
        .map(x -> x.headers().get("X-Account-Id"))
        .distinct()
        .count();
    assertThat(hosts).isEqualTo(32);
    assertThat(Scenario.MONDAY_MAINTENANCE.defaultRate(2, 200)).isEqualTo(20.0);
  }

  private static long countTranscode(ArrivalPlan plan, int fromSecond, int toSecond) {
    return plan.arrivals().stream()
        .filter(x -> x.stream().equals("transcode"))
        .filter(x -> x.offsetNanos() >= fromSecond * 1_000_000_000L
            && x.offsetNanos() < toSecond * 1_000_000_000L)
        .count();
  }
}
