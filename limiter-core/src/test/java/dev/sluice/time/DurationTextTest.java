package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DurationTextTest {

  @Test
  void aNumberWithAUnitIsThatManyUnits() {
    assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationText.parse("60s")).isEqualTo(Duration.ofSeconds(60));
    assertThat(DurationText.parse("15m")).isEqualTo(Duration.ofMinutes(15));
    assertThat(DurationText.parse("1h")).isEqualTo(Duration.ofHours(1));
    assertThat(DurationText.parse("2d")).isEqualTo(Duration.ofDays(2));
    assertThat(DurationText.parse("2w")).isEqualTo(Duration.ofDays(14));
    assertThat(DurationText.parse("0s")).isEqualTo(Duration.ZERO);
  }

  @Test
  void caseSurroundingSpaceAndASpaceBeforeTheUnitDoNotMatter() {
    assertThat(DurationText.parse(" 60S ")).isEqualTo(Duration.ofSeconds(60));
    assertThat(DurationText.parse("10 ms")).isEqualTo(Duration.ofMillis(10));
    assertThat(DurationText.parse("1H")).isEqualTo(Duration.ofHours(1));
  }

  @Test
  void iso8601IsReadAsTheJdkReadsIt() {
    assertThat(DurationText.parse("PT1M")).isEqualTo(Duration.ofMinutes(1));
    assertThat(DurationText.parse("pt0.5s")).isEqualTo(Duration.ofMillis(500));
    assertThat(DurationText.parse("P1D")).isEqualTo(Duration.ofDays(1));
    assertThat(DurationText.parse("P1DT2H")).isEqualTo(Duration.ofHours(26));
  }

  @ParameterizedTest
  @ValueSource(strings = {"soon", "60", "s", "1.5s", "-5s", "5 seconds", "1y", "PT", "P1M", "ms60"})
  void textThatIsNotADurationSaysWhatIsAllowed(String text) {
    assertThatThrownBy(() -> DurationText.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a duration; allowed: ")
        .hasMessageContaining("500ms, 60s, 15m, 1h, 2d")
        .hasMessageContaining("PT1M");
  }

  @Test
  void blankTextIsRequiredAndSaysWhatIsAllowed() {
    for (String text : new String[] {null, "", "   "}) {
      assertThatThrownBy(() -> DurationText.parse(text))
          .hasMessageStartingWith("a duration is required; allowed: ");
    }
  }

  @Test
  void negativeIsoDurationsAreRefused() {
    assertThatThrownBy(() -> DurationText.parse("PT-1S")).hasMessage("must not be negative");
    assertThatThrownBy(() -> DurationText.parse("-PT1M")).hasMessage("must not be negative");
  }

  @Test
  void theLongestIsTheNanosecondsOfALong() {
    assertThat(DurationText.parse("106751d")).isEqualTo(Duration.ofDays(106_751));
    assertThat(DurationText.parse("106751d").toNanos()).isPositive();
    assertThat(DurationText.parse("PT" + Long.MAX_VALUE / 1_000_000_000 + "S").toNanos())
        .isPositive();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "106752d", // fits a Duration, not a long of nanoseconds
        "15251w",
        "9223372036854775807ms", // fits a long of millis: 292 million years
        "9223372036854775807s", // fits a long, not a Duration of days... nor a long of nanos
        "9223372036854775807d", // overflows Duration.ofDays
        "2635249153387078803w", // overflows 7 x amount
        "99999999999999999999s", // more digits than a long holds
        "PT9999999999999999999H", // ISO whose number overflows
        "P106752D"
      })
  void longerThanALongOfNanosecondsIsTooLongNotAnOverflowLater(String text) {
    assertThatThrownBy(() -> DurationText.parse(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("too long; at most 106751d (the nanoseconds a long holds)");
  }
}
