package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Max-min fair division of a quota over demands, and the invariants it keeps. */
class FairShareTest {

  @Test
  void aLightDemandIsMetAndTheRestGoesToTheHeavyOne() {
    assertThat(FairShare.divide(100, new double[] {10, 300})).containsExactly(10, 90);
  }

  @Test
  void demandsOverTheQuotaShareItEqually() {
    assertThat(FairShare.divide(100, new double[] {500, 200})).containsExactly(50, 50);
  }

  @Test
  void whatNobodyAsksForIsSpreadEvenly() {
    assertThat(FairShare.divide(100, new double[] {10, 30})).containsExactly(40, 60);
  }

  @Test
  void waterFillsThroughSeveralLevels() {
    // 5 is met; 95 left for three: 20 is met; 75 left for two: 37.5 each
    long[] shares = FairShare.divide(100, new double[] {5, 20, 1000, 50});
    assertThat(shares[0]).isEqualTo(5);
    assertThat(shares[1]).isEqualTo(20);
    assertThat(shares[2] + shares[3]).isEqualTo(75);
    assertThat(Math.abs(shares[2] - shares[3])).isLessThanOrEqualTo(1);
  }

  @Test
  void aQuotaOfZeroGivesNothing() {
    assertThat(FairShare.divide(0, new double[] {10, 0})).containsExactly(0, 0);
  }

  @Test
  void noDemandNoShares() {
    assertThat(FairShare.divide(100, new double[0])).isEmpty();
  }

  @Test
  void randomDemandsKeepTheInvariants() {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    for (int run = 0; run < 5_000; run++) {
      int n = 1 + random.nextInt(8);
      long quota = random.nextInt(4) == 0 ? random.nextInt(5) : random.nextInt(100_000);
      double[] demands = new double[n];
      for (int i = 0; i < n; i++) {
        demands[i] = random.nextInt(3) == 0 ? random.nextInt(10) : random.nextDouble() * quota;
      }
      long[] shares = FairShare.divide(quota, demands);
      String at = "seed " + seed + " run " + run + ": quota " + quota + ", demands "
          + Arrays.toString(demands) + ", shares " + Arrays.toString(shares);
      assertThat(Arrays.stream(shares).sum()).as(at).isEqualTo(quota);
      double asked = Arrays.stream(demands).sum();
      for (int i = 0; i < n; i++) {
        assertThat(shares[i]).as(at).isNotNegative();
        // nobody gets less than the smaller of its demand and an equal share (1 for rounding)
        assertThat(shares[i])
            .as(at)
            .isGreaterThanOrEqualTo(Math.min((long) Math.floor(demands[i]), quota / n) - 1);
        if (asked >= quota) {
          // nothing is left over: nobody gets more than it asked for (1 for rounding)
          assertThat(shares[i]).as(at).isLessThanOrEqualTo((long) Math.floor(demands[i]) + 1);
          // max-min: one that got less than it asked for has no less than any other (rounding)
          if (shares[i] + 1 < demands[i]) {
            for (long other : shares) {
              assertThat(other).as(at).isLessThanOrEqualTo(shares[i] + 1);
            }
          }
        }
      }
    }
  }
}
