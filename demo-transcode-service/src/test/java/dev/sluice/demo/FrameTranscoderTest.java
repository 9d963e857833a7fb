package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.PrimitiveIterator;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.DoubleSupplier;
import java.util.stream.DoubleStream;
import org.junit.jupiter.api.Test;

class FrameTranscoderTest {

  @Test
  void theSlowWarmUpRoundsAreLeftOutOnceTwoRoundsInARowAgree() {
    Rounds rounds = new Rounds(4.0, 7.0, 9.6, 10.0, 10.1, 99.0);
    double rate = FrameTranscoder.settledRate(rounds, 6, 0.03);
    // 9.6 and 10.0 differ by 4%: not yet settled; 10.0 and 10.1 do agree
    assertThat(rate).isCloseTo(10.05, within(1e-9));
    assertThat(rounds.taken.get()).isEqualTo(5);
  }

  @Test
  void aRateThatNeverSettlesStopsAtTheBoundWithTheLastTwoRounds() {
    Rounds rounds = new Rounds(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    assertThat(FrameTranscoder.settledRate(rounds, 4, 0.03)).isEqualTo(3.5);
    assertThat(rounds.taken.get()).isEqualTo(4);
  }

  @Test
  void fewerThanTwoRoundsIsRefusedByName() {
    assertThatThrownBy(() -> FrameTranscoder.settledRate(() -> 1.0, 1, 0.03))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxRounds")
        .hasMessageContaining("1");
  }

  private static final class Rounds implements DoubleSupplier {
    final AtomicInteger taken = new AtomicInteger();
    private final PrimitiveIterator.OfDouble values;

    Rounds(double... values) {
      this.values = DoubleStream.of(values).iterator();
    }

    @Override
    public double getAsDouble() {
      taken.incrementAndGet();
      return values.nextDouble();
    }
  }
}
