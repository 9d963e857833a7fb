package dev.sluice.loadtest.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class QuotaFiguresTest {

  @Test
  void fairSharesGiveTheLightWhatTheyAskAndDivideTheRest() {
    assertThat(QuotaRun.fair(new double[] {60, 180, 540}, 300)).containsExactly(60, 120, 120);
    assertThat(QuotaRun.fair(new double[] {540, 180, 60}, 300)).containsExactly(120, 120, 60);
    assertThat(QuotaRun.fair(new double[] {10, 300}, 100)).containsExactly(10, 90);
    // nobody asks the whole quota: the rest spread evenly on top
    assertThat(QuotaRun.fair(new double[] {10, 20}, 100)).containsExactly(45, 55);
  }

  @Test
  void fairSharesUseTheQuotaAndNobodyGetsLessThanTheSmallerOfItsDemandAndAnEqualShare() {
    Random random = new Random(7);
    for (int round = 0; round < 500; round++) {
      int n = 1 + random.nextInt(5);
      double[] demands = new double[n];
      for (int i = 0; i < n; i++) {
        demands[i] = random.nextInt(400);
      }
      long quota = 1L + random.nextInt(600);
      long[] shares = QuotaRun.fair(demands, quota);
      long sum = 0;
      for (int i = 0; i < n; i++) {
        sum += shares[i];
        assertThat((double) shares[i])
            .isGreaterThanOrEqualTo(Math.min(demands[i], quota / (double) n) - 1);
      }
      assertThat(Math.abs(sum - quota)).as("rounding only").isLessThanOrEqualTo(n);
    }
  }

  private static QuotaRun.Period period(List<Long> admitted, List<Long> denied, List<Long> share) {
    return new QuotaRun.Period(0, "p", admitted, denied, share, true);
  }

  @Test
  void aProxyRefusedWhileAnotherLeavesOverFivePercentUnusedIsStarved() {
    assertThat(
            QuotaRun.starved(period(List.of(60L, 100L), List.of(0L, 50L), List.of(80L, 100L)), 180))
        .isTrue();
    assertThat(
            QuotaRun.starved(period(List.of(60L, 100L), List.of(0L, 50L), List.of(65L, 100L)), 180))
        .as("5 unused of 180 is within 5%")
        .isFalse();
    assertThat(
            QuotaRun.starved(period(List.of(60L, 100L), List.of(0L, 0L), List.of(100L, 100L)), 200))
        .as("nobody refused")
        .isFalse();
  }

  @Test
  void aSumWithinFivePercentOfTheQuota() {
    assertThat(QuotaRun.withinShare(315, 300)).isTrue();
    assertThat(QuotaRun.withinShare(285, 300)).isTrue();
    assertThat(QuotaRun.withinShare(316, 300)).isFalse();
    assertThat(QuotaRun.withinShare(284, 300)).isFalse();
  }
}
