package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Every report formats its figures the same way. */
class NumbersTest {

  @Test
  void aFigureIsWholeFromAHundredUpAndDecimalBelow() {
    assertThat(Numbers.num(99.94)).isEqualTo("99.9");
    assertThat(Numbers.num(100)).isEqualTo("100");
    assertThat(Numbers.num(-100.4)).isEqualTo("-100");
    assertThat(Numbers.num(0.1234, 3)).isEqualTo("0.123");
    assertThat(Numbers.num(12.345, 2)).isEqualTo("12.35");
  }

  @Test
  void aMissingFigureIsADashInTablesAndSaidMissingInSentences() {
    assertThat(Numbers.num(Double.NaN)).isEqualTo("-");
    assertThat(Numbers.pct(Double.NaN)).isEqualTo("-");
    assertThat(Numbers.times(Double.NaN)).isEqualTo("-");
    assertThat(Numbers.percent(Double.NaN)).isEqualTo("not measured");
    assertThat(Numbers.ms(Double.NaN)).isEqualTo("not measured");
  }

  @Test
  void sharesRatiosAndMillisecondsCarryTheirUnit() {
    assertThat(Numbers.pct(0.945)).isEqualTo("95%");
    assertThat(Numbers.percent(0.9449)).isEqualTo("94%");
    assertThat(Numbers.times(1.25)).isEqualTo("1.3x");
    assertThat(Numbers.change(1.36)).isEqualTo("+36%");
    assertThat(Numbers.change(0.9)).isEqualTo("-10%");
    assertThat(Numbers.ms(3400.4)).isEqualTo("3,400 ms");
  }

  @Test
  void aSentenceRoundsToAWholeNumberFromTenOrWhenWhole() {
    assertThat(Numbers.round(9.94)).isEqualTo("9.9");
    assertThat(Numbers.round(9.96)).isEqualTo("10");
    assertThat(Numbers.round(1.96)).isEqualTo("2");
    assertThat(Numbers.round(10.4)).isEqualTo("10");
    assertThat(Numbers.round(2.0)).isEqualTo("2");
    assertThat(Numbers.f("%,d", 12345)).isEqualTo("12,345");
  }
}
