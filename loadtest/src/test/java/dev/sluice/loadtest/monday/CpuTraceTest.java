package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuTraceTest {

  /** One reading a second, the percents in order. */
  private static CpuTrace everySecond(double... percents) {
    List<CpuTrace.Sample> samples = new ArrayList<>();
    for (int i = 0; i < percents.length; i++) {
      samples.add(new CpuTrace.Sample(i + 1, 1, percents[i]));
    }
    return new CpuTrace(samples);
  }

  @Test
  void theMeanWeighsEachReadingByItsInterval() {
    CpuTrace trace =
        new CpuTrace(List.of(new CpuTrace.Sample(1, 1, 100), new CpuTrace.Sample(4, 3, 60)));

    assertThat(trace.mean()).isCloseTo(70, within(1e-9));
  }

  @Test
  void unreadableReadingsAreLeftOut() {
    CpuTrace trace = new CpuTrace(List.of(
        new CpuTrace.Sample(1, 1, Double.NaN),
        new CpuTrace.Sample(2, 0, 99),
        new CpuTrace.Sample(3, 1, 50)));

    assertThat(trace.samples()).hasSize(1);
    assertThat(trace.mean()).isEqualTo(50);
    assertThat(new CpuTrace(List.of()).mean()).isNaN();
  }

  @Test
  void timeAbove90CountsEveryIntervalAboveIt() {
    assertThat(everySecond(95, 80, 91, 90, 100).secondsAbove(90)).isEqualTo(3);
  }

  @Test
  void theLongestStretchAbove95IsTheLongestRunOfConsecutiveReadings() {
    CpuTrace trace = everySecond(96, 97, 50, 99, 99, 99, 95, 100);

    assertThat(trace.longestAbove(95)).isEqualTo(3); // 95 itself is not above
  }

  @Test
  void aStretchThatLastsToTheEndCounts() {
    assertThat(everySecond(10, 96, 96, 96, 96).longestAbove(95)).isEqualTo(4);
    assertThat(everySecond(10, 20).longestAbove(95)).isZero();
  }

  @Test
  void theWorstWindowIsTheHighestTenSecondMeanStartingAfterTheSettlingTime() {
    double[] percents = new double[60];
    java.util.Arrays.fill(percents, 70);
    for (int i = 0; i < 30; i++) {
      percents[i] = 100; // the first 30 s: the controller settling, not judged
    }
    for (int i = 40; i < 45; i++) {
      percents[i] = 100; // 5 s at 100 % inside otherwise 70 %: a 10 s window holds 85 % at worst
    }

    assertThat(everySecond(percents).worstWindow(10, 30)).isCloseTo(85, within(1e-9));
  }

  @Test
  void aRunTooShortForOneWindowAfterTheSettlingTimeHasNone() {
    assertThat(everySecond(new double[35]).worstWindow(10, 30)).isNaN();
  }
}
