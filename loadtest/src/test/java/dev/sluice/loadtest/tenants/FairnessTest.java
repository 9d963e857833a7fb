package dev.sluice.loadtest.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FairnessTest {

  @Test
  void jainIsOneWhenEveryoneGetsTheSameAndOneOverNWhenOneGetsAll() {
    assertThat(Fairness.jain(new double[] {7, 7, 7, 7})).isEqualTo(1.0);
    assertThat(Fairness.jain(new double[] {12, 0, 0, 0})).isEqualTo(0.25);
    assertThat(Fairness.jain(new double[] {0, 0})).isEqualTo(1.0);
  }

  @Test
  void jainOfOneGreedyHostWithTenTimesTheOthersShareAmong32() {
    double[] served = new double[32];
    java.util.Arrays.fill(served, 1);
    served[0] = 10;
    // (31 + 10)^2 / (32 * (31 + 100)) = 1681 / 4192
    assertThat(Fairness.jain(served)).isCloseTo(1681.0 / 4192, within(1e-12));
  }

  @Test
  void jainRejectsNegativeShares() {
    assertThatThrownBy(() -> Fairness.jain(new double[] {1, -1})).hasMessageContaining("-1");
  }

  @Test
  void maxMinGivesSmallDemandsInFullAndSplitsTheRestEqually() {
    Map<String, Long> demand = new LinkedHashMap<>();
    demand.put("a", 2L);
    demand.put("b", 100L);
    demand.put("c", 5L);
    demand.put("d", 100L);
    // 30 to share: a gets 2, c 5, the 23 left split between b and d
    Map<String, Double> shares = Fairness.maxMinShares(demand, 30);
    assertThat(shares)
        .containsExactly(
            Map.entry("a", 2.0), Map.entry("b", 11.5), Map.entry("c", 5.0), Map.entry("d", 11.5));
  }

  @Test
  void maxMinWithEnoughForEveryoneGivesEachItsDemand() {
    Map<String, Long> demand = Map.of("a", 3L, "b", 4L);
    assertThat(Fairness.maxMinShares(demand, 100)).containsEntry("a", 3.0).containsEntry("b", 4.0);
  }
}
