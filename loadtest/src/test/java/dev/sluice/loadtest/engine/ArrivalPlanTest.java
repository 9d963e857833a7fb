package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArrivalPlanTest {

  private static TrafficStream stream(String name, double rate) {
    return TrafficStream.constant(
        name, "GET", r -> "/" + name, 4, i -> Map.of("X-Account-Id", "a" + i), rate);
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
      assertThat(arrivals.get(i).offsetNanos())
          .isGreaterThanOrEqualTo(arrivals.get(i - 1).offsetNanos());
    }
    assertThat(arrivals.get(arrivals.size() - 1).offsetNanos())
        .isLessThan(Duration.ofSeconds(50).toNanos());
    long a = arrivals.stream().filter(x -> x.stream().equals("a")).count();
    long b = arrivals.stream().filter(x -> x.stream().equals("b")).count();
    // Poisson: mean 10000 and 1000, standard deviation 100 and ~32; five sigma either way
    assertThat(a).isBetween(9500L, 10500L);
    assertThat(b).isBetween(840L, 1160L);
  }
}
