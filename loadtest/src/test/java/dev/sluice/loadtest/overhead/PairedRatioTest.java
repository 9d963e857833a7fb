package dev.sluice.loadtest.overhead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import org.junit.jupiter.api.Test;

class PairedRatioTest {

  @Test
  void aSwingOfTheMachineThatMovesBothSidesCancelsInTheirRatio() {
    // every round is 30% slower or faster than the last, the judged side always 3% dearer
    Random random = new Random(1);
    double[] judged = new double[12];
    double[] base = new double[12];
    for (int i = 0; i < judged.length; i++) {
      double machine = 40 * (0.7 + 0.6 * random.nextDouble());
      base[i] = machine * (1 + 0.005 * random.nextGaussian());
      judged[i] = 1.03 * machine * (1 + 0.005 * random.nextGaussian());
    }

    PairedRatio r = PairedRatio.of(judged, base);

    assertThat(r.ratio()).isCloseTo(1.03, within(0.01));
    assertThat(r.halfWidth()).as("a ±30%% machine still gives ±1%%").isLessThan(0.01);
    assertThat(r.excludes(1.0)).as("3%% is told apart from nothing").isTrue();
    assertThat(r.low()).isLessThan(r.ratio());
    assertThat(r.high()).isGreaterThan(r.ratio());
    assertThat(r.rounds()).isEqualTo(12);
  }

  @Test
  void noisyPairsThatStraddleOneCannotBeToldApart() {
    double[] judged = {40, 44, 38, 41, 39, 43, 40};
    double[] base = {41, 42, 40, 40, 41, 42, 40};

    PairedRatio r = PairedRatio.of(judged, base);

    assertThat(r.low()).isLessThan(1.0);
    assertThat(r.high()).isGreaterThan(1.0);
    assertThat(r.excludes(1.0)).isFalse();
  }

  @Test
  void theIntervalNarrowsAsRoundsAreAdded() {
    Random random = new Random(3);
    double[] judged = new double[40];
    double[] base = new double[40];
    for (int i = 0; i < 40; i++) {
      base[i] = 40;
      judged[i] = 40 * (1.02 + 0.05 * random.nextGaussian());
    }
    PairedRatio few =
        PairedRatio.of(java.util.Arrays.copyOf(judged, 7), java.util.Arrays.copyOf(base, 7));

    PairedRatio many = PairedRatio.of(judged, base);

    assertThat(many.halfWidth()).isLessThan(few.halfWidth() * 0.7);
  }

  @Test
  void aRoundWithoutAFigureOnEitherSideIsLeftOut() {
    PairedRatio r = PairedRatio.of(new double[] {2, Double.NaN, 4, 3}, new double[] {1, 1, 0, 1.5});

    assertThat(r.rounds()).isEqualTo(2);
    assertThat(r.ratio()).isCloseTo(2.0, within(1e-9));
    assertThat(r.low()).isCloseTo(2.0, within(1e-9));
    assertThat(r.high()).isCloseTo(2.0, within(1e-9));
  }

  @Test
  void theSameRoundsGiveTheSameInterval() {
    double[] judged = {40, 44, 38, 41, 39, 43, 40};
    double[] base = {41, 42, 40, 40, 41, 42, 40};

    assertThat(PairedRatio.of(judged, base)).isEqualTo(PairedRatio.of(judged, base));
  }

  @Test
  void nothingPairedIsNotANumberAndUnequalRoundsAreAnError() {
    assertThat(PairedRatio.of(new double[] {Double.NaN}, new double[] {1}).rounds())
        .isZero();
    assertThat(PairedRatio.of(new double[] {2}, new double[] {1}).halfWidth()).isNaN();
    assertThatThrownBy(() -> PairedRatio.of(new double[2], new double[3]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("2 and 3");
  }
}
