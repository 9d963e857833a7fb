package dev.sluice.loadtest.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.engine.ArrivalPlan;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class TenantTrafficTest {

  @Test
  void greedyHostSendsTenTimesWhatEachOfTheOther31Sends() {
    Duration duration = Duration.ofSeconds(200);
    ArrivalPlan plan =
        ArrivalPlan.generate(TenantScenario.GREEDY_HOST.streams(41, 50, duration), duration, 11);
    Map<String, Long> perHost = plan.arrivals().stream()
        .filter(a -> a.headers().containsKey("X-Host-Id")
            && a.headers().get("X-Host-Id").startsWith("maintenance-host-"))
        .collect(Collectors.groupingBy(a -> a.headers().get("X-Host-Id"), Collectors.counting()));
    assertThat(perHost).hasSize(32);
    // 41 jobs/s: 1/s per polite host (200 in 200 s, sd ~14), 10/s for the greedy one (2000, sd ~45)
    assertThat(perHost.get("maintenance-host-01")).isBetween(1800L, 2200L);
    perHost.forEach((host, n) -> {
      if (!host.equals("maintenance-host-01")) {
        assertThat(n).as(host).isBetween(130L, 270L);
      }
    });
    assertThat(plan.arrivals())
        .filteredOn(a -> a.stream().equals("rescue"))
        .isNotEmpty()
        .allSatisfy(a -> {
          assertThat(a.path()).startsWith("/api/transcode?cpuMillis=50");
          assertThat(a.headers())
              .containsEntry("X-Priority", "critical")
              .containsEntry("X-Host-Id", "video-rescue");
        });
    assertThat(plan.arrivals()).anyMatch(a -> a.stream().equals("history"));
  }

  @Test
  void greedyHostAndPriorityAreSizedFromTheDemoLimitersPermits() {
    // 2 cores: round(0.7 x 2) = 1 permit, 20 jobs/s of 50 ms
    assertThat(TenantScenario.GREEDY_HOST.defaultRate(2, 50)).isEqualTo(40.0);
    assertThat(TenantScenario.PRIORITY.defaultRate(2, 50)).isEqualTo(60.0);
    // 8 cores: 6 permits
    assertThat(TenantScenario.PRIORITY.defaultRate(8, 200)).isEqualTo(90.0);
  }

  @Test
  void prioritySendsSheddableLoadAndACriticalTrickle() {
    Duration duration = Duration.ofSeconds(100);
    ArrivalPlan plan =
        ArrivalPlan.generate(TenantScenario.PRIORITY.streams(60, 50, duration), duration, 4);
    Map<String, Long> byClass = plan.arrivals().stream()
        .collect(Collectors.groupingBy(a -> a.headers().get("X-Priority"), Collectors.counting()));
    // 60/s sheddable (6000, sd ~77) and 2/s critical (200, sd ~14)
    assertThat(byClass.get("sheddable")).isBetween(5600L, 6400L);
    assertThat(byClass.get("critical")).isBetween(130L, 270L);
    assertThat(plan.arrivals()).allMatch(a -> a.path().startsWith("/api/transcode"));
  }
}
