package dev.sluice.loadtest.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class TrendTest {

  private static List<Trend.Point> line(double start, double perMinute, int samples) {
    List<Trend.Point> points = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      double seconds = 10.0 * i;
      points.add(new Trend.Point(seconds, start + perMinute * seconds / 60));
    }
    return points;
  }

  @Test
  void aStraightLineGivesItsSlopeAndRise() {
    Trend trend = Trend.of("heap", "MiB", line(16, 0.5, 91), 2, 0.05); // 15 minutes

    assertThat(trend.slopePerMinute()).isCloseTo(0.5, within(1e-9));
    assertThat(trend.rise()).isCloseTo(7.5, within(1e-9));
    assertThat(trend.verdict()).isEqualTo(Trend.RISING);
    assertThat(trend.rising()).isTrue();
  }

  @Test
  void aSawAroundALevelIsFlat() {
    List<Trend.Point> points = new ArrayList<>();
    for (int i = 0; i < 91; i++) {
      points.add(new Trend.Point(10.0 * i, 16 + (i % 2 == 0 ? 1.5 : -1.5)));
    }

    Trend trend = Trend.of("heap", "MiB", points, 2, 0.05);

    assertThat(trend.verdict()).isEqualTo(Trend.FLAT);
    assertThat(Math.abs(trend.rise())).isLessThan(2);
  }

  @Test
  void aRiseWithinTheFloorIsFlat() {
    assertThat(Trend.of("threads", "threads", line(38, 0.1, 91), 2, 0.0).verdict())
        .as("1.5 threads over 15 minutes, floor 2")
        .isEqualTo(Trend.FLAT);
  }

  @Test
  void theToleranceIsTheLargerOfFloorAndFractionOfTheMean() {
    Trend trend = Trend.of("keys", "keys", line(10_000, 40, 91), 50, 0.10); // rises 600

    assertThat(trend.tolerance()).isCloseTo(10_300 * 0.10, within(1.0));
    assertThat(trend.verdict()).isEqualTo(Trend.FLAT);
  }

  @Test
  void aFallIsFallingNotALeak() {
    Trend trend = Trend.of("heap", "MiB", line(20, -1, 31), 2, 0.05);

    assertThat(trend.verdict()).isEqualTo(Trend.FALLING);
    assertThat(trend.rising()).isFalse();
  }

  @Test
  void fewerThanThreeSamplesGiveNoVerdict() {
    assertThat(Trend.of("heap", "MiB", line(16, 100, 2), 2, 0.05).verdict())
        .isEqualTo(Trend.TOO_FEW);
    assertThat(Trend.of("heap", "MiB", List.of(), 2, 0.05).verdict()).isEqualTo(Trend.TOO_FEW);
  }

  @Test
  void samplesAllAtOneInstantGiveNoVerdict() {
    List<Trend.Point> same =
        List.of(new Trend.Point(5, 1), new Trend.Point(5, 2), new Trend.Point(5, 3));

    assertThat(Trend.of("heap", "MiB", same, 2, 0.05).verdict()).isEqualTo(Trend.TOO_FEW);
  }

  @Test
  void aNegativeToleranceIsRefusedNamingIt() {
    assertThatThrownBy(() -> Trend.of("heap", "MiB", line(1, 1, 5), -1, 0.05))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'heap'")
        .hasMessageContaining("floor -1.0");
  }
}
