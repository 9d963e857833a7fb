package dev.sluice.loadtest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArrivalPlanTest {

  private static TrafficStream stream(String name, double rate) {
    return TrafficStream.constant(name, "GET", r -> "/" + name, 4, i -> Map.of("X-Account-Id", "a" + i), rate);
  }

  @Test
  void sameSeedGivesTheSamePlanAndAnotherSeedAnother() {
    List<TrafficStream> streams = List.of(stream("a", 50), stream("b", 5));
    ArrivalPlan one = ArrivalPlan.generate(streams, Duration.ofSeconds(10), 7);
    ArrivalPlan two = ArrivalPlan.generate(streams, Duration.ofSeconds(10), 7);
    ArrivalPlan other = ArrivalPlan.generate(streams, Duration.ofSeconds(10), 8);
    assertThat(one.arrivals()).isEqualTo(two.arrivals());
    assertThat(one.arrivals()).isNotEqualTo(other.arrivals());
  }

  @Test
  void arrivalsAreSortedInsideTheRunAndNearTheOfferedRate() {
    ArrivalPlan plan =
        ArrivalPlan.generate(List.of(stream("a", 200), stream("b", 20)), Duration.ofSeconds(50), 1);
    List<Arrival> arrivals = plan.arrivals();
    for (int i = 1; i < arrivals.size(); i++) {
      assertThat(arrivals.get(i).offsetNanos()).isGreaterThanOrEqualTo(arrivals.get(i - 1).offsetNanos());
    }
    assertThat(arrivals.get(arrivals.size() - 1).offsetNanos()).isLessThan(Duration.ofSeconds(50).toNanos());
    long a = arrivals.stream().filter(x -> x.stream().equals("a")).count();
    long b = arrivals.stream().filter(x -> x.stream().equals("b")).count();
    // Poisson: mean 10000 and 1000, standard deviation 100 and ~32; five sigma either way
    assertThat(a).isBetween(9500L, 10500L);
    assertThat(b).isBetween(840L, 1160L);
  }

  @Test
  void spikeScenarioSendsFourTimesTheRateInItsMiddleFifth() {
    Duration duration = Duration.ofSeconds(100);
    ArrivalPlan plan =
        ArrivalPlan.generate(Scenario.SPIKE.streams(20, 100, duration), duration, 3);
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
    long hosts =
        plan.arrivals().stream()
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
        .filter(x -> x.offsetNanos() >= fromSecond * 1_000_000_000L && x.offsetNanos() < toSecond * 1_000_000_000L)
        .count();
  }
}
