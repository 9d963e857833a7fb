package dev.sluice.loadtest.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadTest {

  @Test
  void spreadIsMeanStddevAndNearestRankPercentilesIgnoringMissingReadings() {
    List<Double> values = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      values.add((double) i);
    }
    values.add(Double.NaN);
    Spread spread = Spread.of(values);
    assertThat(spread.n()).isEqualTo(10);
    assertThat(spread.mean()).isEqualTo(5.5);
    assertThat(spread.stddev()).isCloseTo(Math.sqrt(8.25), within(1e-9));
    assertThat(spread.p10()).isEqualTo(1);
    assertThat(spread.p90()).isEqualTo(9);
    assertThat(Spread.of(List.of()).mean()).isNaN();
  }
}
